"""The readiness cells' tables after the first (`workloads.llm.table`: time and speed), in English and Chinese, and
as run.log's lines (torch-free): decode against the measured read bandwidth, the cells against the device's rated
figures, and memory. One table held every figure and ran 293 columns wide, which a log pane wraps into fragments;
split by topic, each stays within 120 columns (the input, output and batch columns lead each, so a row reads alone).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message, message, message_id_of
from workloads.facts.missing import NA
from workloads.facts.text_table import text_lines
from workloads.llm.table import COLUMNS, cell

_CELL = COLUMNS[:3]   # input, output, batch: which cell a row is
DECODE: tuple[tuple[str, Message], ...] = _CELL + (
    ("decode_tokens_per_s", Message("workload.llm.column.decode_tokens_per_s")),
    ("decode_bound_tokens_per_s", Message("workload.llm.column.decode_bound_tokens_per_s")),
    ("decode_gbps", Message("workload.llm.column.decode_gbps")),
    ("decode_bandwidth_fraction", Message("workload.llm.column.decode_bandwidth_fraction")),
)
RATED: tuple[tuple[str, Message], ...] = _CELL + (
    ("decode_rated_bandwidth_fraction", Message("workload.llm.column.decode_rated_bandwidth_fraction")),
    ("prefill_peak_fraction", Message("workload.llm.column.prefill_peak_fraction")),
)
MEMORY: tuple[tuple[str, Message], ...] = _CELL + (
    ("peak_memory_gib", Message("workload.llm.column.peak_memory_gib")),
    ("estimate_gib", Message("workload.llm.column.estimate_gib")),
    ("status", Message("workload.llm.column.status")),
)


def _memory_kind(kind: str) -> Message | str:
    """What the peak memory measured (`workloads.llm.cells`' words), in the catalogue when it is one of those."""
    key = message_id_of(kind, "workload.llm.memory_kind.")
    return Message(key) if key else kind


def _table(metrics: Mapping[str, Any], heading: Any,
           columns: Sequence[tuple[str, Message]]) -> tuple[Any, list[Any], list[list[Any]]]:
    """The cells' rows under ``columns``; none where the run has no cells (--fit-only, --cold-start)."""
    rows = metrics.get("cells")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    return heading, [label for _, label in columns], [[cell(r, key) for key, _ in columns] for r in rows]


def decode_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """Each cell's decode per sequence beside its bound per sequence and its share of the measured read bandwidth."""
    return _table(metrics, message("workload.llm.table.decode_heading"), DECODE)


def rated_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """Each cell's decode and prefill against the device's rated memory bandwidth and peak FLOP/s."""
    return _table(metrics, message("workload.llm.table.rated_heading"), RATED)


def memory_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """Each cell's peak memory beside the fit's estimate, and whether it ran."""
    kind = str(metrics.get("peak_memory_kind") or NA)
    return _table(metrics, message("workload.llm.table.memory_heading", kind=_memory_kind(kind)), MEMORY)


TABLES = (decode_table, rated_table, memory_table)


def lines(metrics: Mapping[str, Any]) -> list[str]:
    """The three tables as aligned lines for run.log: the same cells the report shows."""
    more = lambda rows: message("workload.llm.table.more", rows=rows)  # noqa: E731 - one message, three tables
    return [line for table in TABLES for line in text_lines(*table(metrics), more=more)]
