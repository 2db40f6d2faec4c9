"""llama-bench's rows as the report's table, in English and Chinese (torch-free): each test's t/s (mean ± sd) beside
its bounds (`workloads.llm.bench_bounds`). The terminal prints the same rows as llama-bench's markdown as well
(`workloads.llm.bench_output`), whose column heads stay llama-bench's own."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message
from workloads.facts.formatting import format_bytes, percent
from workloads.facts.missing import NA
from workloads.llm import bench_output

COLUMNS: tuple[tuple[str, Message], ...] = (
    ("test", Message("workload.llm.bench.column.test")),
    ("avg_ts", Message("workload.llm.bench.column.rate")),
    ("decode", Message("workload.llm.bench.column.decode")),
    ("achieved_gbps", Message("workload.llm.bench.column.achieved_gbps")),
    ("read_gbps", Message("workload.llm.bench.column.read_gbps")),
    ("read_fraction", Message("workload.llm.bench.column.read_fraction")),
    ("rated_gbps", Message("workload.llm.bench.column.rated_gbps")),
    ("rated_bandwidth_fraction", Message("workload.llm.bench.column.rated_bandwidth_fraction")),
    ("achieved_tflops", Message("workload.llm.bench.column.achieved_tflops")),
    ("rated_fraction", Message("workload.llm.bench.column.rated_fraction")),
    ("gemm_fraction", Message("workload.llm.bench.column.gemm_fraction")),
)


def cell(row: Mapping[str, Any], key: str) -> Any:
    if key == "avg_ts":
        return bench_output.rate(row, grouped=True)
    if key == "gemm_fraction":   # a prefill test only: no microbench GEMM figure reaches this run
        return Message("workload.llm.bench.no_gemm_ceiling") if row.get("n_prompt") else NA
    value = row.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return NA if value is None else str(value)
    if key.endswith("fraction"):
        return percent(value)
    return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    rows = metrics.get("bench")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    first = rows[0] if rows else {}
    heading = message("workload.llm.bench.heading", model=str(first.get("model_type") or NA),
                      size=format_bytes(first.get("model_size")), params=f"{first.get('model_n_params') or 0:,}",
                      backend=str(first.get("backends") or NA), dtype=str(first.get("dtype") or NA))
    return heading, [label for _, label in COLUMNS], [[cell(r, key) for key, _ in COLUMNS] for r in rows]
