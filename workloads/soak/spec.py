"""What the workbench, the report and `cardbench soak` know of the soak (torch-free)."""

from __future__ import annotations

from typing import Sequence

from workloads.catalogue import Message
from workloads.soak.result_record import SoakResult
from workloads.spec import Param, WorkloadSpec

RUN_FILES = ("intervals.csv", "verdict.txt")


def inner_runs(argv: Sequence[str], names: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The inner runs the soak's arguments plan, among the workloads ``names`` (torch-free; `workloads.soak.plan`)."""
    from workloads.soak.plan import inner_runs as planned

    return planned(argv, names)


SPEC = WorkloadSpec(
    name="soak",
    title=Message("workload.soak.title"),
    result=SoakResult,
    params=(
        Param("hours", "hours", "--hours", "24", placeholder="24 (0.5 = 30 min)"),
        Param("workload", "workload(s)", "--workload", "resnet50", placeholder="resnet50 or resnet50,generate"),
        Param("args", "their arguments", "--args", "", placeholder="'--amp bf16' (quoted as one)"),
        Param("interval", "interval (s)", "--interval", "600", "int"),
    ),
    suite=None,   # hours long: never part of the headless suite
    progress=Message("workload.soak.progress"),   # a forwarded step counts the inner workload's steps so far
    inner_runs=inner_runs,
    run_files=RUN_FILES,
    detached=True,   # issue 13: a soak is always detached, from the launcher too
)
