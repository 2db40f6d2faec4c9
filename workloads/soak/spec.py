"""What the workbench, the report and `cardbench soak` know of the soak (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.spec import Metric, Param, WorkloadSpec

RUN_FILES = ("intervals.csv", "verdict.txt")


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """The per-interval table, the verdict in its heading (torch-free)."""
    from workloads.soak.table import report_table as table

    return table(metrics)


def inner_runs(argv: Sequence[str], names: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The inner runs the soak's arguments plan, among the workloads ``names`` (torch-free; `workloads.soak.plan`)."""
    from workloads.soak.plan import inner_runs as planned

    return planned(argv, names)


SPEC = WorkloadSpec(
    name="soak",
    title=Message("workload.soak.title"),
    unit="% drift",
    headline="drift_worst_pct",
    params=(
        Param("hours", "hours", "--hours", "24", placeholder="24 (0.5 = 30 min)"),
        Param("workload", "workload(s)", "--workload", "resnet50", placeholder="resnet50 or resnet50,generate"),
        Param("args", "their arguments", "--args", "", placeholder="'--amp bf16' (quoted as one)"),
        Param("interval", "interval (s)", "--interval", "600", "int"),
    ),
    suite=None,   # hours long: never part of the headless suite
    metrics=(
        Metric("verdict", Message("workload.soak.metric.verdict"), "text"),
        Metric("drift_worst_pct", Message("workload.soak.metric.drift_worst_pct")),
        Metric("latency_drift_worst_pct", Message("workload.soak.metric.latency_drift_worst_pct")),
        Metric("first_interval_median", Message("workload.soak.metric.first_interval_median"), "rate"),
        Metric("hours", Message("workload.soak.metric.hours")),
        Metric("runs", Message("workload.soak.metric.runs")),
        Metric("restarts", Message("workload.soak.metric.restarts")),
        Metric("errors", Message("workload.soak.metric.errors")),
        Metric("xid_count", Message("workload.soak.metric.xid_count")),
    ),
    line_metrics=(Metric("verdict", Message("workload.shared.metric.verdict"), "text"),),
    progress=Message("workload.soak.progress"),   # a forwarded step counts the inner workload's steps so far
    report_table=report_table,
    inner_runs=inner_runs,
    run_files=RUN_FILES,
    verdict="verdict",
    detached=True,   # issue 13: a soak is always detached, from the launcher too
)
