"""The result of a generate run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free.

Every key the child gives is declared here: the timed runs' figures (`workloads.generate.measure.metrics`), what
`workloads.generate.cli.main` adds (dtype, decode path, peak memory, --prompt's text), and the share of bandwidth
published only as unreliable when decoding beat its measured bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import BYTES, COUNT, FRACTION, SECONDS, TEXT, Record, figure

_RATE = "tokens/s"


@dataclass
class GenerateResult(Record):
    HEADLINE: ClassVar[str] = "tokens_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("tokens_per_s", "aggregate_tokens_per_s", "bound_tokens_per_s",
        "bandwidth_fraction", "bandwidth_gbps", "device_read_gbps", "ttft_s", "latency_p50_s", "latency_p99_s",
        "tokens", "model_size")
    LINE: ClassVar[tuple[str, ...]] = ("ttft_s", "bandwidth_fraction")
    COST_BASIS: ClassVar[str | None] = "tokens"

    # the headline and the report's table
    tokens_per_s: float | None = figure("workload.generate.metric.tokens_per_s", _RATE)
    aggregate_tokens_per_s: float | None = figure("workload.generate.metric.aggregate_tokens_per_s", _RATE)
    bound_tokens_per_s: float | None = figure("workload.generate.metric.bound_tokens_per_s", _RATE)
    bandwidth_fraction: float | None = figure("workload.shared.metric.decode_bandwidth_fraction", FRACTION)
    bandwidth_gbps: float | None = figure("workload.generate.metric.bandwidth_gbps", "GB/s")
    device_read_gbps: float | None = figure("workload.shared.metric.device_read_gbps", "GB/s")
    ttft_s: float | None = figure("workload.shared.metric.ttft_s", SECONDS)
    latency_p50_s: float | None = figure("workload.generate.metric.latency_p50_s", SECONDS)
    latency_p99_s: float | None = figure("workload.generate.metric.latency_p99_s", SECONDS)
    tokens: int | None = figure("workload.generate.metric.tokens", COUNT)
    model_size: str | None = figure("workload.shared.metric.model_size", TEXT)
    # the rest of the timed runs' figures
    latency_p90_s: float | None = figure("workload.generate.metric.latency_p90_s", SECONDS)
    end_to_end_tokens_per_s: float | None = figure("workload.generate.metric.end_to_end_tokens_per_s", _RATE)
    tokens_per_s_runs: list[float] | None = figure("workload.generate.metric.tokens_per_s_runs", _RATE)
    # decoding beat its bound (the bound read low): bandwidth_fraction is None and the ratio is kept here, a plain
    # number, since a share above 100 % is never printed as one (the report says "unreliable" in its place)
    bandwidth_fraction_unreliable: float | None = figure(
        "workload.generate.metric.bandwidth_fraction_unreliable", COUNT)
    # the bound: the read bandwidth's rounds and what a decode step reads
    device_read_median_gbps: float | None = figure("workload.generate.metric.device_read_median_gbps", "GB/s")
    device_read_rounds_gbps: list[float] | None = figure("workload.generate.metric.device_read_rounds_gbps", "GB/s")
    bandwidth_method: str | None = figure("workload.shared.metric.bandwidth_method", TEXT)
    weight_bytes_per_step: int | None = figure("workload.generate.metric.weight_bytes_per_step", BYTES)
    kv_bytes_per_step: int | None = figure("workload.generate.metric.kv_bytes_per_step", BYTES)
    # what the run was
    batch_size: int | None = figure("workload.shared.metric.batch_size", COUNT)
    tokens_asked: int | None = figure("workload.generate.metric.tokens_asked", COUNT)
    prompt_len: int | None = figure("workload.generate.metric.prompt_len", COUNT)
    parameters: int | None = figure("workload.shared.metric.parameters", COUNT)
    product_split: int | None = figure("workload.generate.metric.product_split", COUNT)
    repeat: int | None = figure("workload.shared.metric.repeat", COUNT)
    dtype: str | None = figure("workload.shared.metric.dtype", TEXT)
    decode: str | None = figure("workload.shared.metric.decode", TEXT)
    # memory
    peak_memory_bytes: int | None = figure("workload.shared.metric.peak_memory_bytes", BYTES)
    peak_memory_reserved_bytes: int | None = figure("workload.shared.metric.peak_memory_reserved_bytes", BYTES)
    peak_memory_kind: str | None = figure("workload.shared.metric.peak_memory_kind", TEXT)
    # --prompt's continuation
    sample_text: str | None = figure("workload.generate.metric.sample_text", TEXT)
