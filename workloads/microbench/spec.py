"""What the workbench, the headless suite and the report know of the microbenchmarks (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.microbench.result_record import MicrobenchResult
from workloads.spec import DEVICE_PLACEHOLDER, Param, SuiteArgs, WorkloadSpec, positive

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


# the CPU's bf16 and fp16 GEMMs are emulated (0.1-1 GFLOP/s here): left out of the suite, which stays short
CPU_ARGS = ("--only", "gemm,memory,launch,burn", "--dtypes", "fp32,int8", "--max-size", "512", "--buffer-mib", "128",
            "--burn-seconds", "1", "--burn-size", "256")
CPU_NOTE = Message("workload.microbench.cpu_note")

SPEC = WorkloadSpec(
    name="microbench",
    title=Message("workload.microbench.title"),
    result=MicrobenchResult,
    short="Microbench",
    params=(
        Param("only", "parts", "--only", "", placeholder=f"{','.join(PARTS)} (default all)"),
        Param("dtypes", "GEMM dtypes", "--dtypes", "", placeholder="fp32,tf32,fp16,bf16,int8,fp8"),
        Param("burn_seconds", "burn check (s)", "--burn-seconds", "30", "int", max=3600),
        Param("max_size", "largest GEMM side", "--max-size", "", "int", placeholder="16384 (CPU 2048)", max=65536),
        Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
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
    counts="parts",
    # a step event is a part done: the launcher's "parts done 1/4" while run.log says "part 2/4: memory" (started)
    progress=Message("workload.shared.progress"),
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
)
