"""What the workbench, the headless suite and the report know of the microbenchmarks (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.spec import Metric, Param, SuiteArgs, WorkloadSpec, positive

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
CPU_NOTE = Message("workload.microbench.cpu_note")

SPEC = WorkloadSpec(
    name="microbench",
    title=Message("workload.microbench.title"),
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
        Metric("gemm_best_tflops", Message("workload.microbench.metric.gemm_best_tflops"), "rate"),
        Metric("gemm_best_dtype", Message("workload.microbench.metric.gemm_best_dtype"), "text"),
        Metric("memory_copy", Message("workload.microbench.metric.memory_copy"), "rate"),
        Metric("memory_copy_of_rated", Message("workload.microbench.metric.memory_copy_of_rated"), "fraction"),
        Metric("h2d_pinned", Message("workload.microbench.metric.h2d_pinned"), "rate"),
        Metric("pcie_link", Message("workload.microbench.metric.pcie_link"), "text"),
        Metric("launch_eager_host_us", Message("workload.microbench.metric.launch_eager_host_us")),
        Metric("burn", Message("workload.microbench.metric.burn"), "text"),
        Metric("rated_as", Message("workload.microbench.metric.rated_as"), "text"),
    ),
    line_metrics=(Metric("burn", Message("workload.microbench.line.burn"), "text"),),
    counts="parts",
    # a step event is a part done: the launcher's "parts done 1/4" while run.log says "part 2/4: memory" (started)
    progress=Message("workload.shared.progress"),
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
    report_table=report_table,
)
