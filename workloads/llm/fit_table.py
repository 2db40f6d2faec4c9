"""The memory fit (`workloads.models.llama.fit.fit_table`'s rows: inference and each way of training) as a table,
for the report of a --fit-only run and every run's log (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message, message_id_of
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA

COLUMNS: tuple[tuple[str, Message], ...] = (
    ("use", Message("workload.llm.fit.column.use")),
    ("total_bytes", Message("workload.llm.fit.column.total")),
    ("weights_bytes", Message("workload.llm.fit.column.weights")),
    ("kv_cache_bytes", Message("workload.llm.fit.column.kv_cache")),
    ("activations_bytes", Message("workload.llm.fit.column.activations")),
    ("gradients_bytes", Message("workload.llm.fit.column.gradients")),
    ("optimizer_bytes", Message("workload.llm.fit.column.optimizer")),
    ("workspace_bytes", Message("workload.llm.fit.column.workspace")),
    ("modules_bytes", Message("workload.llm.fit.column.modules")),
    ("fits", Message("workload.llm.fit.column.fits")),
)


def verdict(row: Mapping[str, Any]) -> Any:
    """Whether the use fits the free memory, or how many cards of that memory it needs; N/A without a free figure."""
    if row.get("fits") is None:
        return NA
    if row["fits"]:
        return Message("workload.llm.fit.fits")
    return message("workload.llm.fit.does_not_fit", cards=row.get("cards") if row.get("cards") is not None else NA)


def cell(row: Mapping[str, Any], key: str) -> Any:
    if key == "fits":
        return verdict(row)
    if key == "use":
        use = str(row.get("use") or NA)
        said = message_id_of(use, "workload.llm.fit.use.")   # the result carries the English fit.py wrote
        return Message(said) if said else use
    return format_bytes(row.get(key))   # the one byte formatter: the estimate as the device's memory is said


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    rows = metrics.get("fit")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    lengths = [metrics.get(k) for k in ("batch_size", "input_len", "output_len")]
    batch, context = (lengths[0], lengths[1] + lengths[2]) if all(type(n) is int for n in lengths) else (NA, NA)
    heading = message("workload.llm.fit.heading", model=str(metrics.get("model_size") or NA),
                      dtype=str(metrics.get("dtype") or NA), batch=batch, context=context,
                      free=format_bytes(metrics.get("free_bytes")))
    return heading, [label for _, label in COLUMNS], [[cell(r, key) for key, _ in COLUMNS] for r in rows]
