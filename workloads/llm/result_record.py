"""The result of a llm run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import SECONDS, FRACTION, BYTES, TEXT, Record, figure


@dataclass
class LlmResult(Record):
    HEADLINE: ClassVar[str] = "tg_tokens_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("tg_tokens_per_s", "pp_tokens_per_s", "decode_tokens_per_s",
        "decode_tokens_per_s_all", "decode_bound_tokens_per_s", "decode_bandwidth_fraction", "ttft_s", "tpot_p50_s",
        "tpot_p99_s", "prefill_tokens_per_s", "prefill_peak_fraction", "end_to_end_s", "peak_memory_bytes",
        "fit_estimate_error", "device_read_gbps", "model_size", "sweep")
    LINE: ClassVar[tuple[str, ...]] = ("pp_tokens_per_s", "model_size")
    COST_BASIS: ClassVar[str | None] = "tokens"
    REPORT_TABLE: ClassVar[str | None] = "workloads.llm.table:report_table"
    READ_AGAINST: ClassVar[str | None] = "workloads.llm.against:read_against"

    tg_tokens_per_s: float | None = figure("workload.llm.metric.tg_tokens_per_s", "tokens/s")
    pp_tokens_per_s: float | None = figure(
        "workload.llm.metric.pp_tokens_per_s", "tokens/s", short="workload.llm.line.pp_tokens_per_s")
    decode_tokens_per_s: float | None = figure("workload.llm.metric.decode_tokens_per_s", "tokens/s")
    decode_tokens_per_s_all: float | None = figure("workload.llm.metric.decode_tokens_per_s_all", "tokens/s")
    decode_bound_tokens_per_s: float | None = figure("workload.llm.metric.decode_bound_tokens_per_s", "tokens/s")
    decode_bandwidth_fraction: float | None = figure("workload.shared.metric.decode_bandwidth_fraction", FRACTION)
    ttft_s: float | None = figure("workload.shared.metric.ttft_s", SECONDS)
    tpot_p50_s: float | None = figure("workload.llm.metric.tpot_p50_s", SECONDS)
    tpot_p99_s: float | None = figure("workload.llm.metric.tpot_p99_s", SECONDS)
    prefill_tokens_per_s: float | None = figure("workload.llm.metric.prefill_tokens_per_s", "tokens/s")
    prefill_peak_fraction: float | None = figure("workload.llm.metric.prefill_peak_fraction", FRACTION)
    end_to_end_s: float | None = figure("workload.llm.metric.end_to_end_s", SECONDS)
    peak_memory_bytes: float | None = figure("workload.llm.metric.peak_memory_bytes", BYTES)
    fit_estimate_error: float | None = figure("workload.llm.metric.fit_estimate_error", FRACTION)
    device_read_gbps: float | None = figure("workload.shared.metric.device_read_gbps", "GB/s")
    model_size: str | None = figure("workload.shared.metric.model_size", TEXT)
    sweep: str | None = figure("workload.llm.metric.sweep", TEXT)
