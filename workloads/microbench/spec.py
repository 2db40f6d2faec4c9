"""What the workbench, the headless suite and the report know of the microbenchmarks (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.spec import Metric, Param, SuiteArgs, Text, WorkloadSpec, positive

PARTS = ("gemm", "memory", "transfer", "launch", "burn", "collectives")
SINGLE_DEVICE = "gemm,memory,transfer,launch,burn"


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """One step per part: the parts named by --only, else all of them."""
    if positive(config.get("total_steps")):
        return positive(config.get("total_steps"))
    for i, item in enumerate(args):
        text = args[i + 1] if item == "--only" and i + 1 < len(args) else (
            item.split("=", 1)[1] if item.startswith("--only=") else None)
        if text is not None:
            return len({p.strip() for p in text.split(",") if p.strip()}) or None
    return len(PARTS)


def report_table(metrics: Mapping[str, Any]) -> tuple[str, list[str], list[list[str]]]:
    from workloads.microbench.table import report_table as table

    return table(metrics)


# the CPU's bf16 and fp16 GEMMs are emulated (0.1-1 GFLOP/s here): left out of the suite, which stays short
CPU_ARGS = ("--only", "gemm,memory,launch,burn", "--dtypes", "fp32,int8", "--max-size", "512", "--buffer-mib", "128",
            "--burn-seconds", "1", "--burn-size", "256")
CPU_NOTE = Text("no accelerator, so GEMM in fp32 and int8 up to 512 x 512, memory on 128 MiB buffers, a 1 s "
                "bit-for-bit check, and no host link to measure",
                "没有加速卡，因此 GEMM 只测 fp32 和 int8，最大 512 x 512，内存测试用 128 MiB 缓冲区，逐位校验 1 秒，"
                "且没有主机链路可测")

SPEC = WorkloadSpec(
    name="microbench",
    title=Text("Microbenchmarks against rated figures", "微基准测试（对照标称值）"),
    short="Microbench",
    unit="TFLOP/s",
    headline="gemm_best_tflops",
    params=(
        Param("only", "parts", "--only", "", placeholder=f"{','.join(PARTS)} (default all)"),
        Param("dtypes", "GEMM dtypes", "--dtypes", "", placeholder="fp32,tf32,fp16,bf16,int8,fp8"),
        Param("burn_seconds", "burn check (s)", "--burn-seconds", "30", "int", max=3600),
        Param("max_size", "largest GEMM side", "--max-size", "", "int", placeholder="16384 (CPU 2048)", max=65536),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
    # in the standard suite (the quick one's CPU time budget has no room for it; `--workloads microbench` adds it):
    # on a GPU the single-device parts take about half a minute with a 10 s check (a minute and a half with the
    # standard 60 s one); collectives are left to `--workloads microbench --only ...`, since they start torchrun
    # across every visible device
    suite=SuiteArgs(
        quick=("--only", SINGLE_DEVICE, "--burn-seconds", "10"),
        standard=("--only", SINGLE_DEVICE, "--burn-seconds", "60"),
        cpu_quick=CPU_ARGS, cpu_standard=CPU_ARGS, cpu_quick_note=CPU_NOTE, cpu_standard_note=CPU_NOTE,
        suites=("standard",),
    ),
    metrics=(
        Metric("gemm_best_tflops", Text("GEMM TFLOP/s, fastest float dtype at its best size",
                                        "GEMM TFLOP/s，最快浮点精度的最佳尺寸"), "rate"),
        Metric("gemm_best_dtype", Text("that dtype", "该精度"), "text"),
        Metric("memory_copy", Text("memory copy GB/s (read + write)", "显存拷贝 GB/s（读+写）"), "rate"),
        Metric("memory_copy_of_rated", Text("copy / rated memory bandwidth", "拷贝 / 标称显存带宽"), "fraction"),
        Metric("h2d_pinned", Text("host -> device GB/s, pinned", "主机到设备 GB/s（锁页）"), "rate"),
        Metric("pcie_link", Text("PCIe link", "PCIe 链路"), "text"),
        Metric("launch_eager_host_us", Text("kernel launch, host dispatch (us)", "内核启动，主机下发（微秒）")),
        Metric("burn", Text("bit-for-bit GEMM check", "GEMM 逐位一致性检查"), "text"),
        Metric("rated_as", Text("rated figures of", "标称值来源设备"), "text"),
    ),
    line_metrics=(Metric("burn", Text("bit-for-bit check", "逐位检查"), "text"),),
    counts="parts",
    # a step event is a part done: the launcher's "parts done 1/4" while run.log says "part 2/4: memory" (started)
    progress=Text("parts done", "已完成部分"),
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
    report_table=report_table,
)
