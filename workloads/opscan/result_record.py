"""The result of a opscan run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from workloads.result_record import NESTED, SECONDS, TEXT, COUNT, Record, figure


@dataclass
class OpscanResult(Record):
    HEADLINE: ClassVar[str] = "cases_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("cases_per_s", "ops", "calls", "rows_ok", "rows_failed", "precisions_clean",
        "restarts", "scan_s")
    LINE: ClassVar[tuple[str, ...]] = ("rows_failed",)
    REPORT_TABLE: ClassVar[str | None] = "workloads.opscan.table:compatibility_of_result"

    cases_per_s: float | None = figure("workload.opscan.metric.cases_per_s", "cases/s")
    ops: int | None = figure("workload.opscan.metric.ops", COUNT)
    calls: int | None = figure("workload.opscan.metric.calls", COUNT)
    rows_ok: int | None = figure("workload.opscan.metric.rows_ok", COUNT)
    rows_failed: int | None = figure(
        "workload.opscan.metric.rows_failed", COUNT, short="workload.opscan.line.rows_failed")
    # the dtypes, a list (a run before said them as one string, read as written)
    precisions_clean: list[str] | None = figure("workload.opscan.metric.precisions_clean", NESTED)
    restarts: int | None = figure("workload.opscan.metric.restarts", COUNT)
    scan_s: float | None = figure("workload.opscan.metric.scan_s", SECONDS)
    # the rest of the scan's result (cli.result_metrics): a new scan's and a resumed one's alike
    rows: int | None = figure("workload.opscan.metric.rows", COUNT)
    crashes: int | None = figure("workload.opscan.metric.crashes", COUNT)
    hangs: int | None = figure("workload.opscan.metric.hangs", COUNT)
    record_s: float | None = figure("workload.opscan.metric.record_s", SECONDS)
    cases_run: int | None = figure("workload.opscan.metric.cases_run", COUNT)
    ops_csv: str | None = figure("workload.opscan.metric.ops_csv", TEXT)
    # nested, kept whole in events.jsonl: the report's compatibility table is made from by_dtype and failures
    by_dtype: dict[str, dict[str, int]] | None = figure("workload.opscan.metric.by_dtype", NESTED)
    failures: list[dict[str, Any]] | None = figure("workload.opscan.metric.failures", NESTED)
    precision_verdict: dict[str, str] | None = figure("workload.opscan.metric.precision_verdict", NESTED)
    restart_s: list[float] | None = figure("workload.opscan.metric.restart_s", NESTED)
