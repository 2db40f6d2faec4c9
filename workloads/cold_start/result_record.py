"""A cold start's figures, declared once for the records of the workloads that measure one (llm, finetune): each
workload's record derives from :class:`ColdStartFigures`, so ``cardbench ready`` reads the same keys from either.

Seconds per phase (`workloads.cold_start.split`), the read's bytes and its cold/warm state with the reason, and what
the compile phase was (or why it is N/A).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import BYTES, FRACTION, SECONDS, TEXT, Record, figure


@dataclass
class ColdStartFigures(Record):
    # compare sets the phases side by side (a card's cold start against another's, a cold read against a warm one)
    COMPARED: ClassVar[tuple[str, ...]] = ("cold_start_s", "cold_start_import_s", "cold_start_device_s",
                                           "cold_start_read_s", "cold_start_build_s", "cold_start_compile_s",
                                           "cold_start_first_token_s")
    cold_start_s: float | None = figure("workload.cold_start.metric.total_s", SECONDS)
    cold_start_import_s: float | None = figure("workload.cold_start.metric.import_s", SECONDS)
    cold_start_device_s: float | None = figure("workload.cold_start.metric.device_s", SECONDS)
    cold_start_read_s: float | None = figure("workload.cold_start.metric.read_s", SECONDS)
    cold_start_read_state: str | None = figure("workload.cold_start.metric.read_state", TEXT)
    cold_start_read_reason: str | None = figure("workload.cold_start.metric.read_reason", TEXT)
    # the reason's parts (`workloads.cold_start.page_cache.ReadState`), which the report says in either language
    cold_start_read_how: str | None = figure("workload.cold_start.metric.read_how", TEXT)
    cold_start_read_resident: float | None = figure("workload.cold_start.metric.read_resident", FRACTION)
    cold_start_read_refused: str | None = figure("workload.cold_start.metric.read_refused", TEXT)
    cold_start_read_bytes: int | None = figure("workload.cold_start.metric.read_bytes", BYTES)
    cold_start_build_s: float | None = figure("workload.cold_start.metric.build_s", SECONDS)
    cold_start_compile_s: float | None = figure("workload.cold_start.metric.compile_s", SECONDS)
    cold_start_compile_note: str | None = figure("workload.cold_start.metric.compile_note", TEXT)
    cold_start_compile_how: str | None = figure("workload.cold_start.metric.compile_how", TEXT)
    cold_start_compile_error: str | None = figure("workload.cold_start.metric.compile_error", TEXT)
    cold_start_first_token_s: float | None = figure("workload.cold_start.metric.first_token_s", SECONDS)
