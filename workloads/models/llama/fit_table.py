"""The fit plan (`workloads.models.llama.fit_plan`) as one table a user can paste into a trial report: a row per use
with its estimate, a column per card or size with its verdict, then the runtime's lines, accelerate's weights-only
figure, and each card's bounds and cost (torch-free; llm's and finetune's report table, and the terminal's).

A run recorded before the plan had targets (its rows carry ``fits`` and ``cards`` against ``free_bytes``) is
read as one target, this device's free memory.
"""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Joined, Message, message
from workloads.facts.formatting import format_bytes, format_number, percent
from workloads.facts.missing import NA, is_finite
from workloads.facts.text_table import text_lines
from workloads.models.llama.runtime_cost import ALLOCATOR_SHARE

COLUMNS: tuple[tuple[str, Message], ...] = (
    ("use", Message("workload.fit.column.use")),
    ("total_bytes", Message("workload.fit.column.needs")),
    ("weights_bytes", Message("workload.fit.column.weights")),
    ("kv_cache_bytes", Message("workload.fit.column.kv_cache")),
    ("activations_bytes", Message("workload.fit.column.activations")),
    ("transient_bytes", Message("workload.fit.column.transient")),
    ("trained_bytes", Message("workload.fit.column.gradients_optimizer")),
    ("runtime_bytes", Message("workload.fit.column.runtime")),
)
_USE_IDS = ("inference", "lora", "lora_checkpointing", "full", "full_checkpointing")
_ENGLISH_USES = {"train LoRA r16": "lora", "train LoRA r16, activation checkpointing": "lora_checkpointing",
                 "train AdamW full": "full", "train AdamW full, activation checkpointing": "full_checkpointing"}


def _targets(metrics: Mapping[str, Any], rows: list[dict]) -> tuple[list[dict], list[list[dict]]]:
    """The targets and each row's verdicts on them (an older run's one verdict against its free memory)."""
    targets = metrics.get("fit_targets")
    if isinstance(targets, list):
        targets = [t for t in targets if isinstance(t, dict)]
        verdicts = [[v if isinstance(v, dict) else {} for v in (r.get("targets") or [])] for r in rows]
        return targets, [v + [{}] * (len(targets) - len(v)) for v in verdicts]
    if not is_finite(metrics.get("free_bytes")):
        return [], [[] for _ in rows]
    old = [[{"fits": r.get("fits"), "cards": r.get("cards")}] for r in rows]
    return [{"name": "", "kind": "free", "memory_bytes": metrics["free_bytes"]}], old


def target_label(t: Mapping[str, Any]) -> Message:
    memory = format_bytes(t.get("memory_bytes"))
    kind = t.get("kind") if t.get("kind") in ("card", "size", "free") else "size"
    return message(f"workload.fit.target.{kind}", name=str(t.get("name") or NA), memory=memory)


def _use(row: Mapping[str, Any]) -> Any:
    key = row.get("use_id") or _ENGLISH_USES.get(str(row.get("use")), row.get("use"))
    return Message(f"workload.fit.use.{key}") if key in _USE_IDS else str(row.get("use") or NA)


def _verdict(v: Mapping[str, Any]) -> Any:
    if v.get("fits") is None:
        return NA
    if v["fits"]:
        batch = v.get("largest_batch")
        return message("workload.fit.fits", batch=format_number(batch) if batch is not None else NA)
    cards = v.get("cards")
    return message("workload.fit.cards", cards=cards) if cards else Message("workload.fit.no_cards")


def _use_row(row: Mapping[str, Any], verdicts: list[dict]) -> list[Any]:
    cells: list[Any] = [_use(row)]
    for key, _label in COLUMNS[1:]:
        if key == "trained_bytes":
            parts = [row.get("gradients_bytes"), row.get("optimizer_bytes")]
            cells.append(format_bytes(sum(parts)) if all(is_finite(p) for p in parts) else NA)
        else:
            cells.append(format_bytes(row.get(key)))
    return cells + [_verdict(v) for v in verdicts]


def _line(label: Any, value: Any, per_target: list[Any], width: int) -> list[Any]:
    """A row under the uses: its label, one figure in the 'needs' column or one a target."""
    return [label, value] + [""] * (width - 2) + per_target


def _bound(rate: Any, figure: str) -> Any:
    if not is_finite(rate):
        return Message("workload.fit.no_figure")
    return message("workload.fit.bound", rate=format_number(rate, 3), figure=figure)


def _lines(metrics: Mapping[str, Any], targets: list[dict]) -> list[list[Any]]:
    """The runtime's lines, accelerate's figure, and each target's longest context, bounds and cost."""
    width = len(COLUMNS)
    blank = [""] * len(targets)
    out = [_line(Message("workload.fit.line.context"), format_bytes(metrics.get("fit_context_bytes")), blank, width),
           _line(message("workload.fit.line.allocator", share=percent(ALLOCATOR_SHARE)),
                 format_bytes(metrics.get("fit_allocator_bytes")), blank, width),
           _line(Message("workload.fit.line.graph_pool"), format_bytes(metrics.get("fit_graph_pool_bytes")), blank, width),
           _line(Message("workload.fit.line.collectives"), format_bytes(metrics.get("fit_collectives_bytes")), blank,
                 width),
           _line(Message("workload.fit.line.accelerate"), format_bytes(metrics.get("fit_accelerate_bytes")), blank,
                 width),
           _line(Message("workload.fit.line.accelerate_training"),
                 format_bytes(metrics.get("fit_accelerate_training_bytes")), blank, width),
           _line(message("workload.fit.line.longest_context", batch=metrics.get("fit_batch") or NA), "",
                 [format_number(t.get("longest_context")) for t in targets], width)]
    cards = [t for t in targets if t.get("kind") == "card"]
    if not cards:
        return out
    pick = [t if t.get("kind") == "card" else None for t in targets]
    out.append(_line(Message("workload.fit.line.decode_bound"), "", [
        _bound(t.get("decode_bound_tokens_per_s"), f"{format_number(t.get('bandwidth_gbps'))} GB/s") if t else ""
        for t in pick], width))
    out.append(_line(message("workload.fit.line.prefill_bound", dtype=str(metrics.get("fit_dtype") or NA)), "", [
        _bound(t.get("prefill_bound_tokens_per_s"), f"{format_number(t.get('peak_tflops'))} TFLOP/s") if t else ""
        for t in pick], width))
    price = metrics.get("fit_price_per_hour")
    if is_finite(price):
        out.append(_line(message("workload.fit.line.cost", price=format_number(price),
                                 currency=str(metrics.get("fit_currency") or "")), "",
                         [format_number(t.get("cost_per_million_tokens"), 3) if t else "" for t in pick], width))
    return out


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """(heading, columns, rows) of the fit, as every printer of a report table takes them."""
    rows = metrics.get("fit")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    targets, verdicts = _targets(metrics, rows)
    said = [target_label(t) for t in targets]
    heading = message("workload.fit.heading", model=str(metrics.get("model_size") or NA),
                      dtype=str(metrics.get("fit_dtype") or metrics.get("dtype") or NA),
                      batch=metrics.get("fit_batch") or metrics.get("batch_size") or NA,
                      context=metrics.get("fit_context") or NA, prefill=metrics.get("fit_prefill") or NA,
                      targets=Joined(tuple(said)) if said else NA)
    columns = [label for _, label in COLUMNS] + said
    table = [_use_row(r, v) for r, v in zip(rows, verdicts)]
    return heading, columns, table + (_lines(metrics, targets) if "fit_targets" in metrics else [])



def lines(metrics: Mapping[str, Any]) -> list[str]:
    """The plan's table as aligned lines, for the log of a --fit-only run of llm or finetune."""
    return text_lines(*report_table(metrics))
