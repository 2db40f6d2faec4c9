"""What the workbench, the headless suite and the report know of the operator-coverage scan (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.opscan.handover import hand_over
from workloads.spec import Metric, Param, SuiteArgs, Text, WorkloadSpec, positive


RUN_FILES = ("ops.csv",)   # what the bundle should carry of a scan's run directory besides the events


def report_table(metrics: Mapping[str, Any]) -> tuple[Text, list[str | Text], list[list[str | Text]]]:
    """The report's compatibility table (heading, columns, rows) from a scan's result metrics (torch-free)."""
    from workloads.opscan.table import compatibility_of_result

    return compatibility_of_result(dict(metrics))


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Cases (a recorded call in a dtype): known once the worker has recorded, from the start event."""
    return positive(config.get("total_steps"))


CPU_NOTE = "no accelerator, so the scan ran on the CPU and timed each case once (not the median of 3)"
# the launcher's fields: empty ones are not passed, so the scan takes its own defaults
FIELDS = (
    Param("dtypes", "dtypes", "--dtypes", "", placeholder="fp32,fp16,bf16 (+tf32 where the device has it)"),
    Param("model", "model", "--model", "", placeholder="built-ins, or MODULE:FUNC"),
    Param("op_timeout", "per-op timeout (s)", "--op-timeout", "60", "int"),
    Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
)

SPEC = WorkloadSpec(
    name="opscan", title=Message("workload.opscan.title"), unit="cases/s", headline="cases_per_s",
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
    metrics=(
        # the headline: one figure for the whole scan, not the steps' windowed rates the summary reads it against
        Metric("cases_per_s", Message("workload.opscan.metric.cases_per_s"), "rate"),
        Metric("ops", Message("workload.opscan.metric.ops")),
        Metric("calls", Message("workload.opscan.metric.calls")),
        Metric("rows_ok", Message("workload.opscan.metric.rows_ok")),
        Metric("rows_failed", Message("workload.opscan.metric.rows_failed")),
        Metric("precisions_clean", Message("workload.opscan.metric.precisions_clean"), "text"),
        Metric("restarts", Message("workload.opscan.metric.restarts")),
        Metric("scan_s", Message("workload.opscan.metric.scan_s"), "seconds"),
    ),
    line_metrics=(Metric("rows_failed", Message("workload.opscan.line.rows_failed")),),
    planned_steps=planned_steps,
    report_table=report_table, run_files=RUN_FILES,
    hand_over=hand_over,
)
