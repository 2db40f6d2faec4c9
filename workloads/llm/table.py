"""The readiness cells as the report's table, in English and Chinese, and as run.log's lines (torch-free); a
--fit-only run, which has no cells, has its memory fit as its tables (`workloads.models.llama.fit_table`: the estimate
here, the verdicts and the runtime's lines as the record's MORE_TABLES), a --cold-start run its phases
(`workloads.cold_start.table`)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message
from workloads.facts.formatting import percent
from workloads.facts.missing import NA
from workloads.cold_start import table as cold_start_table
from workloads.facts.text_table import text_lines
from workloads.models.llama import fit_table

COLUMNS: tuple[tuple[str, Message], ...] = (   # time and speed; the rest: `workloads.llm.cell_tables`
    ("input_len", Message("workload.llm.column.input_len")),
    ("output_len", Message("workload.llm.column.output_len")),
    ("batch", Message("workload.llm.column.batch")),
    ("ttft_ms", Message("workload.llm.column.ttft_ms")),
    ("tpot_p50_ms", Message("workload.serve.line.tpot_ms_p50")),
    ("tpot_p90_ms", Message("workload.llm.column.tpot_p90_ms")),
    ("tpot_p99_ms", Message("workload.llm.column.tpot_p99_ms")),
    ("end_to_end_s", Message("workload.llm.column.end_to_end_s")),
    ("decode_tokens_per_s_all", Message("workload.llm.column.decode_tokens_per_s_all")),
    ("prefill_tokens_per_s", Message("workload.llm.column.prefill_tokens_per_s")),
)


def _value(row: Mapping[str, Any], key: str) -> Any:
    if key.endswith("_ms"):
        base = row.get(key[:-3] + "_s")
        return base * 1000 if isinstance(base, (int, float)) else None
    if key.endswith("_gib"):
        base = row.get("peak_memory_bytes" if key.startswith("peak") else "estimate_bytes")
        return base / 2**30 if isinstance(base, (int, float)) else None
    return row.get(key)


def cell(row: Mapping[str, Any], key: str) -> str:
    value = _value(row, key)
    if value is None:
        return NA
    if key.endswith("_fraction") and isinstance(value, (int, float)):
        return percent(value)   # as the report's tables say a share: 16.5 %, not 16%
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"
    return str(value)


def _cells(metrics: Mapping[str, Any]) -> list[dict]:
    rows = metrics.get("cells")
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def _cold_start(metrics: Mapping[str, Any]) -> bool:
    return not _cells(metrics) and "cells" not in metrics and cold_start_table.has_cold_start(metrics)


def _plan(metrics: Mapping[str, Any]) -> bool:
    """A --fit-only run: no cells and no cold start, the fit is all it measured (a timed run's fit is its log's)."""
    return not _cells(metrics) and "cells" not in metrics and not _cold_start(metrics)


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """The cells; a --cold-start run's phases; a --fit-only run's estimate (its verdicts and runtime lines follow,
    MORE_TABLES': :func:`fit_verdicts`, :func:`fit_runtime`)."""
    rows = _cells(metrics)
    if _cold_start(metrics):   # --cold-start's phases
        return cold_start_table.report_table(metrics)
    if _plan(metrics):   # --fit-only: the fit is all it measured
        return fit_table.estimate_table(metrics)
    heading = message("workload.llm.table.heading")
    return heading, [label for _, label in COLUMNS], [[cell(r, key) for key, _ in COLUMNS] for r in rows]


def fit_verdicts(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """A --fit-only run's verdicts and bounds a target (`fit_table.verdict_table`); no rows for any other run."""
    return fit_table.verdict_table(metrics if _plan(metrics) else {})


def fit_runtime(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """A --fit-only run's runtime lines and accelerate's figures (`fit_table.runtime_table`); no rows for any other."""
    return fit_table.runtime_table(metrics if _plan(metrics) else {})


def lines(metrics: Mapping[str, Any]) -> list[str]:
    """The report's table (the cells', or a --fit-only run's fit) as aligned lines for run.log: the same cells."""
    return text_lines(*report_table(metrics), more=lambda rows: message("workload.llm.table.more", rows=rows))
