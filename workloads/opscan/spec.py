"""What the workbench, the headless suite and the report know of the operator-coverage scan (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.opscan.handover import hand_over
from workloads.opscan.result_record import OpscanResult
from workloads.spec import DEVICE_PLACEHOLDER, Param, SuiteArgs, WorkloadSpec, positive


RUN_FILES = ("ops.csv",)   # what the bundle should carry of a scan's run directory besides the events


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Cases (a recorded call in a dtype): known once the worker has recorded, from the start event."""
    return positive(config.get("total_steps"))


CPU_NOTE = Message("workload.opscan.cpu_note")
# the launcher's fields: empty ones are not passed, so the scan takes its own defaults
FIELDS = (
    Param("dtypes", "dtypes", "--dtypes", "", placeholder="fp32,fp16,bf16 (+tf32 where the device has it)"),
    Param("model", "model", "--model", "", placeholder="built-ins, or MODULE:FUNC"),
    Param("op_timeout", "per-op timeout (s)", "--op-timeout", "60", "int"),
    Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
)

SPEC = WorkloadSpec(
    name="opscan", title=Message("workload.opscan.title"), result=OpscanResult,
    short="Op-scan",
    params=FIELDS,
    # not in the quick suite, whose time budget has no room for it (`--workloads opscan` adds it); with its hand_over
    # the suite runs it first and its verdict goes to the workloads it names by source (handover.py)
    suite=SuiteArgs(
        quick=(), standard=(), cpu_quick=("--repeats", "1"), cpu_standard=("--repeats", "1"),
        cpu_quick_note=CPU_NOTE, cpu_standard_note=CPU_NOTE,
        suites=("standard",),
    ),
    progress=Message("workload.opscan.progress"),   # a step event counts cases (a recorded call in a dtype)
    has_loss=False,
    planned_steps=planned_steps,
    run_files=RUN_FILES,
    hand_over=hand_over,
)
