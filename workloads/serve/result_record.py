"""The result of a serve run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.catalogue import Message, message
from workloads.result_record import TEXT, COUNT, Record, figure

# the headline and its rates are the sweep's last level's (the load the card held last)
_LAST = Message("workload.serve.at_last_level")


@dataclass
class ServeResult(Record):
    HEADLINE: ClassVar[str] = "output_tokens_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("output_tokens_per_s", "total_tokens_per_s", "request_throughput", "goodput",
        "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "itl_ms_p50", "e2el_ms_p50", "at_level",
        "served_model", "endpoint", "input_len", "output_len", "tokens_from", "requests", "errors")
    LINE: ClassVar[tuple[str, ...]] = ("ttft_ms_p50", "tpot_ms_p50", "errors")
    REPORT_TABLE: ClassVar[str | None] = "workloads.serve.table:report_table"
    READ_AGAINST: ClassVar[str | None] = "workloads.serve.bounds:read_against"

    output_tokens_per_s: float | None = figure(message("workload.serve.metric.output_tokens_per_s", last=_LAST), "tokens/s")
    total_tokens_per_s: float | None = figure(message("workload.serve.metric.total_tokens_per_s", last=_LAST), "tokens/s")
    request_throughput: float | None = figure(message("workload.serve.metric.request_throughput", last=_LAST), "requests/s")
    goodput: float | None = figure(message("workload.serve.metric.goodput", last=_LAST), "requests/s")
    ttft_ms_p50: float | None = figure(
        "workload.serve.metric.ttft_ms_p50", "ms", short="workload.serve.line.ttft_ms_p50")
    ttft_ms_p99: float | None = figure("workload.serve.metric.ttft_ms_p99", "ms")
    tpot_ms_p50: float | None = figure(
        "workload.serve.metric.tpot_ms_p50", "ms", short="workload.serve.line.tpot_ms_p50")
    tpot_ms_p99: float | None = figure("workload.serve.metric.tpot_ms_p99", "ms")
    itl_ms_p50: float | None = figure("workload.serve.metric.itl_ms_p50", "ms")
    e2el_ms_p50: float | None = figure("workload.serve.metric.e2el_ms_p50", "ms")
    at_level: str | None = figure("workload.serve.metric.at_level", TEXT)
    served_model: str | None = figure("workload.serve.metric.served_model", TEXT)
    endpoint: str | None = figure("workload.serve.metric.endpoint", TEXT)
    input_len: float | None = figure("workload.serve.metric.input_len", COUNT)
    output_len: float | None = figure("workload.serve.metric.output_len", COUNT)
    tokens_from: str | None = figure("workload.serve.metric.tokens_from", TEXT)
    requests: float | None = figure("workload.serve.metric.requests", COUNT)
    errors: float | None = figure("workload.serve.metric.errors", COUNT, short="workload.serve.line.errors")
