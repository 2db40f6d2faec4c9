"""The result of a soak run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import TEXT, COUNT, Record, figure


@dataclass
class SoakResult(Record):
    HEADLINE: ClassVar[str] = "drift_worst_pct"
    TABLE: ClassVar[tuple[str, ...]] = ("verdict", "drift_worst_pct", "latency_drift_worst_pct",
        "first_interval_median", "hours", "runs", "restarts", "errors", "xid_count")
    LINE: ClassVar[tuple[str, ...]] = ("verdict",)
    VERDICT: ClassVar[str] = "verdict"
    UNIT: ClassVar[str | None] = "% drift"
    REPORT_TABLE: ClassVar[str | None] = "workloads.soak.table:report_table"

    verdict: str | None = figure("workload.soak.metric.verdict", TEXT, short="workload.shared.metric.verdict")
    drift_worst_pct: float | None = figure("workload.soak.metric.drift_worst_pct", "%")
    latency_drift_worst_pct: float | None = figure("workload.soak.metric.latency_drift_worst_pct", "%")
    first_interval_median: float | None = figure("workload.soak.metric.first_interval_median", "/s")
    hours: float | None = figure("workload.soak.metric.hours", "h")
    runs: float | None = figure("workload.soak.metric.runs", COUNT)
    restarts: float | None = figure("workload.soak.metric.restarts", COUNT)
    errors: float | None = figure("workload.soak.metric.errors", COUNT)
    xid_count: float | None = figure("workload.soak.metric.xid_count", COUNT)
