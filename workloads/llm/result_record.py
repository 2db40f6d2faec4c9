"""The result of a llm run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free.

Every key the child can give is declared here, on each of its paths: a run (one cell or a sweep; one cell's
figures are the run's, `workloads.llm.run.measure`), --fit-only (`workloads.llm.cli.main`), and --prompt's text.
llama-bench's pp/tg figures are named at run time by their lengths (``tg128_tokens_per_s``), so they are families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from workloads.models.llama.fit_record import FitFigures
from workloads.cold_start.result_record import ColdStartFigures
from workloads.result_record import BYTES, COUNT, FRACTION, NESTED, SECONDS, TEXT, Family, figure
from workloads.cpu_fallback_record import CpuFallbackFigures

_RATE = "tokens/s"
# llama-bench's tests of n tokens (`workloads.llm.cells.llama_bench`): each one's mean, sample stddev and the rate of
# each repetition
_BENCH = (
    Family(r"pp(?P<n>\d+)_tokens_per_s", "workload.llm.metric.pp_n_tokens_per_s", _RATE),
    Family(r"pp(?P<n>\d+)_stddev_tokens_per_s", "workload.llm.metric.pp_n_stddev_tokens_per_s", _RATE),
    Family(r"pp(?P<n>\d+)_runs_tokens_per_s", "workload.llm.metric.pp_n_runs_tokens_per_s", _RATE),
    Family(r"tg(?P<n>\d+)_tokens_per_s", "workload.llm.metric.tg_n_tokens_per_s", _RATE),
    Family(r"tg(?P<n>\d+)_stddev_tokens_per_s", "workload.llm.metric.tg_n_stddev_tokens_per_s", _RATE),
    Family(r"tg(?P<n>\d+)_runs_tokens_per_s", "workload.llm.metric.tg_n_runs_tokens_per_s", _RATE),
    # a run recorded before these keys named their unit (`workloads.llm.against.spread_of` reads them too)
    Family(r"pp(?P<n>\d+)_stddev", "workload.llm.metric.pp_n_stddev_tokens_per_s", _RATE),
    Family(r"pp(?P<n>\d+)_runs", "workload.llm.metric.pp_n_runs_tokens_per_s", _RATE),
    Family(r"tg(?P<n>\d+)_stddev", "workload.llm.metric.tg_n_stddev_tokens_per_s", _RATE),
    Family(r"tg(?P<n>\d+)_runs", "workload.llm.metric.tg_n_runs_tokens_per_s", _RATE),
)


@dataclass
class LlmResult(FitFigures, ColdStartFigures, CpuFallbackFigures):   # --fit-only's plan, --cold-start's phases and
    # the CPU fallback check's figures, inherited
    HEADLINE: ClassVar[str] = "tg_tokens_per_s"
    STEPS_REPEAT: ClassVar[bool] = False   # each step is a cell of its own shape
    TABLE: ClassVar[tuple[str, ...]] = ("tg_tokens_per_s", "pp_tokens_per_s", "decode_tokens_per_s",
        "decode_tokens_per_s_all", "decode_bound_tokens_per_s", "decode_bandwidth_fraction", "decode_gbps",
        "rated_gbps", "decode_rated_bandwidth_fraction", "ttft_s", "tpot_p50_s",
        "tpot_p99_s", "prefill_tokens_per_s", "prefill_peak_fraction", "end_to_end_s", "peak_memory_bytes",
        "fit_estimate_error", "device_read_gbps", "model_size", "sweep")
    LINE: ClassVar[tuple[str, ...]] = ("pp_tokens_per_s", "model_size")
    PLAN_LINE: ClassVar[tuple[str, ...]] = ("model_size", "dtype", "batch_size", "input_len", "output_len",
                                            "largest_batch", "largest_context")
    COST_BASIS: ClassVar[str | None] = "tokens"
    FAMILIES: ClassVar[tuple[Family, ...]] = _BENCH
    REPORT_TABLE: ClassVar[str | None] = "workloads.llm.table:report_table"
    # a --fit-only run's verdicts and runtime lines under its estimate (REPORT_TABLE's); a timed run's cells by topic
    # after its first (time and speed), then llama-bench's tg and pp tests: each table within 120 columns
    MORE_TABLES: ClassVar[tuple[str, ...]] = (
        "workloads.llm.table:fit_verdicts", "workloads.llm.table:fit_runtime",
        "workloads.llm.cell_tables:decode_table", "workloads.llm.cell_tables:rated_table",
        "workloads.llm.cell_tables:memory_table", "workloads.llm.bench_table:report_table",
        "workloads.llm.bench_table:pp_table")
    TERMINAL_TEXT: ClassVar[str | None] = "workloads.llm.bench_output:terminal_lines"
    READ_AGAINST: ClassVar[str | None] = "workloads.llm.against:read_against"

    # the headline and the report's table
    tg_tokens_per_s: float | None = figure("workload.llm.metric.tg_tokens_per_s", _RATE)
    pp_tokens_per_s: float | None = figure(
        "workload.llm.metric.pp_tokens_per_s", _RATE, short="workload.llm.line.pp_tokens_per_s")
    decode_tokens_per_s: float | None = figure("workload.llm.metric.decode_tokens_per_s", _RATE)
    decode_tokens_per_s_all: float | None = figure("workload.llm.metric.decode_tokens_per_s_all", _RATE)
    decode_bound_tokens_per_s: float | None = figure("workload.llm.metric.decode_bound_tokens_per_s", _RATE)
    decode_bandwidth_fraction: float | None = figure("workload.llm.metric.decode_bandwidth_fraction", FRACTION)
    decode_gbps: float | None = figure("workload.llm.metric.decode_gbps", "GB/s")
    rated_gbps: float | None = figure("workload.llm.metric.rated_gbps", "GB/s")
    decode_rated_bandwidth_fraction: float | None = figure("workload.llm.metric.decode_rated_bandwidth_fraction",
                                                           FRACTION)
    ttft_s: float | None = figure("workload.shared.metric.ttft_s", SECONDS)
    tpot_p50_s: float | None = figure("workload.llm.metric.tpot_p50_s", SECONDS)
    tpot_p99_s: float | None = figure("workload.llm.metric.tpot_p99_s", SECONDS)
    prefill_tokens_per_s: float | None = figure("workload.llm.metric.prefill_tokens_per_s", _RATE)
    prefill_peak_fraction: float | None = figure("workload.llm.metric.prefill_peak_fraction", FRACTION)
    end_to_end_s: float | None = figure("workload.llm.metric.end_to_end_s", SECONDS)
    peak_memory_bytes: int | None = figure("workload.llm.metric.peak_memory_bytes", BYTES)
    fit_estimate_error: float | None = figure("workload.llm.metric.fit_estimate_error", FRACTION)
    device_read_gbps: float | None = figure("workload.llm.metric.device_read_gbps", "GB/s")
    model_size: str | None = figure("workload.shared.metric.model_size", TEXT)
    sweep: str | None = figure("workload.llm.metric.sweep", TEXT)
    # what the run was (`workloads.llm.plan.identity`: compare sets two runs side by side by these)
    pp: int | None = figure("workload.llm.metric.pp", COUNT)
    tg: int | None = figure("workload.llm.metric.tg", COUNT)
    input_len: int | None = figure("workload.llm.metric.input_len", COUNT)
    output_len: int | None = figure("workload.llm.metric.output_len", COUNT)
    batch_size: int | None = figure("workload.shared.metric.batch_size", COUNT)
    dtype: str | None = figure("workload.shared.metric.dtype", TEXT)
    parameters: int | None = figure("workload.shared.metric.parameters", COUNT)
    repeat: int | None = figure("workload.llm.metric.repeat", COUNT)
    decode: str | None = figure("workload.shared.metric.decode", TEXT)
    # the cells (the report's table of its own) and the one cell's further figures, when there is one cell
    cells: list[dict[str, Any]] | None = figure("workload.llm.metric.cells", NESTED)
    status: str | None = figure("workload.llm.metric.status", TEXT)
    estimate_bytes: int | None = figure("workload.llm.metric.estimate_bytes", BYTES)
    tpot_p90_s: float | None = figure("workload.llm.metric.tpot_p90_s", SECONDS)
    prefill_tflops: float | None = figure("workload.llm.metric.prefill_tflops", "TFLOP/s")
    decode_bytes_per_step: int | None = figure("workload.llm.metric.decode_bytes_per_step", BYTES)
    # the bounds' sources and what the memory figure measured
    bandwidth_method: str | None = figure("workload.llm.metric.bandwidth_method", TEXT)
    rated_tflops: float | None = figure("workload.shared.metric.peak_tflops", "TFLOP/s", kind="number")
    rated_source: str | None = figure("workload.shared.metric.rated_source", TEXT)
    peak_memory_kind: str | None = figure("workload.shared.metric.peak_memory_kind", TEXT)
    # the fit (every run, and all a --fit-only run gives): the plan's figures are FitFigures', inherited
    free_bytes: int | None = figure("workload.llm.metric.free_bytes", BYTES)
    largest_batch: int | None = figure("workload.llm.metric.largest_batch", COUNT)
    largest_context: int | None = figure("workload.llm.metric.largest_context", COUNT)
    # llama-bench's rows (`workloads.llm.cells.llama_bench`, each beside its bounds: `workloads.llm.bench_bounds`) and
    # the format the terminal printed them in (--output)
    bench: list[dict[str, Any]] | None = figure("workload.llm.metric.bench", NESTED)
    bench_output: str | None = figure("workload.llm.metric.bench_output", TEXT)
    # --prompt's greedy continuation
    sample_text: str | None = figure("workload.llm.metric.sample_text", TEXT)
