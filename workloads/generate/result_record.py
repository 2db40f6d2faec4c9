"""The result of a generate run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import SECONDS, FRACTION, TEXT, COUNT, Record, figure


@dataclass
class GenerateResult(Record):
    HEADLINE: ClassVar[str] = "tokens_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("tokens_per_s", "aggregate_tokens_per_s", "bound_tokens_per_s",
        "bandwidth_fraction", "bandwidth_gbps", "device_read_gbps", "ttft_s", "latency_p50_s", "latency_p99_s",
        "tokens", "model_size")
    LINE: ClassVar[tuple[str, ...]] = ("ttft_s", "bandwidth_fraction")
    COST_BASIS: ClassVar[str | None] = "tokens"

    tokens_per_s: float | None = figure("workload.generate.metric.tokens_per_s", "tokens/s")
    aggregate_tokens_per_s: float | None = figure("workload.generate.metric.aggregate_tokens_per_s", "tokens/s")
    bound_tokens_per_s: float | None = figure("workload.generate.metric.bound_tokens_per_s", "tokens/s")
    bandwidth_fraction: float | None = figure("workload.shared.metric.decode_bandwidth_fraction", FRACTION)
    bandwidth_gbps: float | None = figure("workload.generate.metric.bandwidth_gbps", "GB/s")
    device_read_gbps: float | None = figure("workload.shared.metric.device_read_gbps", "GB/s")
    ttft_s: float | None = figure("workload.shared.metric.ttft_s", SECONDS)
    latency_p50_s: float | None = figure("workload.generate.metric.latency_p50_s", SECONDS)
    latency_p99_s: float | None = figure("workload.generate.metric.latency_p99_s", SECONDS)
    tokens: float | None = figure("workload.generate.metric.tokens", COUNT)
    model_size: str | None = figure("workload.shared.metric.model_size", TEXT)
