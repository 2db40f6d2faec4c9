"""The result of a opscan run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import SECONDS, TEXT, COUNT, Record, figure


@dataclass
class OpscanResult(Record):
    HEADLINE: ClassVar[str] = "cases_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("cases_per_s", "ops", "calls", "rows_ok", "rows_failed", "precisions_clean",
        "restarts", "scan_s")
    LINE: ClassVar[tuple[str, ...]] = ("rows_failed",)
    REPORT_TABLE: ClassVar[str | None] = "workloads.opscan.table:compatibility_of_result"

    cases_per_s: float | None = figure("workload.opscan.metric.cases_per_s", "cases/s")
    ops: float | None = figure("workload.opscan.metric.ops", COUNT)
    calls: float | None = figure("workload.opscan.metric.calls", COUNT)
    rows_ok: float | None = figure("workload.opscan.metric.rows_ok", COUNT)
    rows_failed: float | None = figure(
        "workload.opscan.metric.rows_failed", COUNT, short="workload.opscan.line.rows_failed")
    precisions_clean: str | None = figure("workload.opscan.metric.precisions_clean", TEXT)
    restarts: float | None = figure("workload.opscan.metric.restarts", COUNT)
    scan_s: float | None = figure("workload.opscan.metric.scan_s", SECONDS)
