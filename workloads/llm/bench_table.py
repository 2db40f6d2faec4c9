"""llama-bench's rows as the report's tables, in English and Chinese (torch-free): each test's t/s (mean ± sd) beside
its bounds (`workloads.llm.bench_bounds`), the tg tests against the bandwidths and the pp tests against the peak, so
each table stays within 120 columns (one held both and ran 229 wide); a figure the same for every test (the measured
read bandwidth, the rated one, the decode path) is said once, in the heading. The terminal prints the same rows as
llama-bench's markdown as well (`workloads.llm.bench_output`), whose column heads stay llama-bench's own."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message, message
from workloads.facts.formatting import format_bytes, percent
from workloads.facts.missing import NA
from workloads.llm import bench_output

_TEST = (("test", Message("workload.llm.bench.column.test")), ("avg_ts", Message("workload.llm.bench.column.rate")))
TG_COLUMNS: tuple[tuple[str, Message], ...] = _TEST + (
    ("achieved_gbps", Message("workload.llm.bench.column.achieved_gbps")),
    ("read_fraction", Message("workload.llm.bench.column.read_fraction")),
    ("rated_bandwidth_fraction", Message("workload.llm.bench.column.rated_bandwidth_fraction")),
)
PP_COLUMNS: tuple[tuple[str, Message], ...] = _TEST + (
    ("achieved_tflops", Message("workload.llm.bench.column.achieved_tflops")),
    ("rated_fraction", Message("workload.llm.bench.column.rated_fraction")),
)


def cell(row: Mapping[str, Any], key: str) -> Any:
    if key == "avg_ts":
        return bench_output.rate(row, grouped=True)
    value = row.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return NA if value is None else str(value)
    if key.endswith("fraction"):
        return percent(value)
    return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"


def _rows(metrics: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    """The tests of ``kind`` ("n_gen": tg, "n_prompt": pp), in llama-bench's order."""
    rows = metrics.get("bench")
    return [r for r in rows if isinstance(r, dict) and r.get(kind)] if isinstance(rows, list) else []


def _gbps(rows: Sequence[Mapping[str, Any]], key: str) -> str:
    """A bandwidth every test shares (the run's), as the heading says it: '16.6 GB/s', or N/A."""
    value = next((r.get(key) for r in rows if isinstance(r.get(key), (int, float))), None)
    return NA if value is None else f"{value:.3g} GB/s"


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """The tg tests: decode against the measured read bandwidth and the rated memory bandwidth."""
    rows = _rows(metrics, "n_gen")
    first = rows[0] if rows else {}
    heading = message("workload.llm.bench.heading", model=str(first.get("model_type") or NA),
                      size=format_bytes(first.get("model_size")), params=f"{first.get('model_n_params') or 0:,}",
                      backend=str(first.get("backends") or NA), dtype=str(first.get("dtype") or NA),
                      decode=str(first.get("decode") or NA), read=_gbps(rows, "read_gbps"),
                      rated=_gbps(rows, "rated_gbps"))
    return heading, [label for _, label in TG_COLUMNS], [[cell(r, key) for key, _ in TG_COLUMNS] for r in rows]


def pp_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """The pp tests: prefill against the dtype's rated peak (no microbench GEMM ceiling reaches this run)."""
    rows = _rows(metrics, "n_prompt")
    first = rows[0] if rows else {}
    heading = message("workload.llm.bench.pp_heading", model=str(first.get("model_type") or NA),
                      dtype=str(first.get("dtype") or NA), gemm=Message("workload.llm.bench.no_gemm_ceiling"))
    return heading, [label for _, label in PP_COLUMNS], [[cell(r, key) for key, _ in PP_COLUMNS] for r in rows]
