"""The result of a soak run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free.

What `workloads.soak.cli.Soak.finish` gives, with or without inner runs: the verdict and its findings, the rules and
every closed interval whole (the report's table), the counts of runs, and the worst drifts against the first interval;
``finding_<n>`` and ``rule_<n>`` repeat the findings and rules as short lines, one figure each, for the report's list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import NESTED, SECONDS, TEXT, COUNT, Family, Record, figure


@dataclass
class SoakResult(Record):
    HEADLINE: ClassVar[str] = "drift_worst_pct"
    TABLE: ClassVar[tuple[str, ...]] = ("verdict", "drift_worst_pct", "latency_drift_worst_pct",
        "first_interval_median", "hours", "runs", "restarts", "errors", "xid_count")
    LINE: ClassVar[tuple[str, ...]] = ("verdict",)
    VERDICT: ClassVar[str] = "verdict"
    UNIT: ClassVar[str | None] = "% drift"
    REPORT_TABLE: ClassVar[str | None] = "workloads.soak.table:report_table"
    FAMILIES: ClassVar[tuple[Family, ...]] = (
        Family(r"finding_(?P<n>\d+)", "workload.soak.metric.finding_n", TEXT),   # the first 20 findings, in order
        Family(r"rule_(?P<n>\d+)", "workload.soak.metric.rule_n", TEXT),
    )

    verdict: str | None = figure("workload.soak.metric.verdict", TEXT, short="workload.shared.metric.verdict")
    findings_count: int | None = figure("workload.soak.metric.findings_count", COUNT)
    findings: list[dict[str, str]] | None = figure("workload.soak.metric.findings", NESTED)
    rules: list[str] | None = figure("workload.soak.metric.rules", NESTED)
    intervals: list[dict[str, str]] | None = figure("workload.soak.metric.intervals", NESTED)
    drift_worst_pct: float | None = figure("workload.soak.metric.drift_worst_pct", "%")
    latency_drift_worst_pct: float | None = figure("workload.soak.metric.latency_drift_worst_pct", "%")   # serving
    # in the unit of that workload's steps (its first interval with steps after warm-up)
    first_interval_median: float | None = figure("workload.soak.metric.first_interval_median", "/s")
    first_workload: str | None = figure("workload.soak.metric.first_workload", TEXT)
    hours: float | None = figure("workload.soak.metric.hours", "h")
    hours_planned: float | None = figure("workload.soak.metric.hours_planned", "h")
    interval_s: float | None = figure("workload.soak.metric.interval_s", SECONDS)
    stopped_early: bool | None = figure("workload.soak.metric.stopped_early", TEXT)
    runs: int | None = figure("workload.soak.metric.runs", COUNT)
    failed_runs: int | None = figure("workload.soak.metric.failed_runs", COUNT)
    restarts: int | None = figure("workload.soak.metric.restarts", COUNT)
    errors: int | None = figure("workload.soak.metric.errors", COUNT)
    xid_count: int | None = figure("workload.soak.metric.xid_count", COUNT)
