"""The fit plan (`workloads.models.llama.fit_plan`) as three tables a user can paste into a trial report, each inside
a 120-column terminal for a plan against two cards (torch-free):

1. the estimate (:func:`estimate_table`): a row per use, what it needs on one card and the parts of it;
2. the verdicts (:func:`verdict_table`): a row per use and a column per target, headed short ("Ascend 910B3 64 GiB";
   the heading says each target in full), then each target's longest context, its rated figures, the decode and
   prefill bounds they give, and the cost at a price;
3. the runtime's lines and accelerate's figures (:func:`runtime_table`): a line and its bytes, each labelled as the
   result's figure is (`workloads.models.llama.fit_record`), so the report's list of every figure says it alike.

llm's and finetune's records name them as their report's tables (REPORT_TABLE, then MORE_TABLES: the report, the
terminal and run.log print them one under another), and bench/fit_tables.py prints them as markdown. A run recorded
before the plan had targets (its rows carry ``fits`` and ``cards`` against ``free_bytes``) is read as one target,
this device's free memory.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from workloads.catalogue import Joined, Message, message
from workloads.facts.formatting import format_bytes, format_number, percent
from workloads.facts.missing import NA, is_finite
from workloads.facts.text_table import text_lines
from workloads.models.llama.fit_record import FitFigures
from workloads.models.llama.runtime_cost import ALLOCATOR_SHARE

Table = tuple[Any, list[Any], list[list[Any]]]

# the estimate's columns: (the row's key, its label); "trained_bytes" is the gradients and AdamW's moments together
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
# the runtime's lines of the inference estimate, then accelerate's figures: the third table's rows, in order
RUNTIME_LINES = ("fit_context_bytes", "fit_allocator_bytes", "fit_graph_pool_bytes", "fit_collectives_bytes",
                 "fit_accelerate_bytes", "fit_accelerate_training_bytes")
_USE_IDS = ("inference", "lora", "lora_checkpointing", "full", "full_checkpointing")
_ENGLISH_USES = {"train LoRA r16": "lora", "train LoRA r16, activation checkpointing": "lora_checkpointing",
                 "train AdamW full": "full", "train AdamW full, activation checkpointing": "full_checkpointing"}
# a maker whose name is two words (rated.csv's other makers are one: "NVIDIA", "Huawei", "Intel")
_TWO_WORD_MAKERS = ("Moore Threads",)


def _rows(metrics: Mapping[str, Any]) -> list[dict]:
    rows = metrics.get("fit")
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


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


def _kind(t: Mapping[str, Any]) -> str:
    return t["kind"] if t.get("kind") in ("card", "size", "free") else "size"


def target_label(t: Mapping[str, Any]) -> Message:
    """A target in full, as the verdicts' heading says it: 'NVIDIA A100 80GB (form factor not named), 80.0 GiB
    rated'."""
    return message(f"workload.fit.target.{_kind(t)}", name=str(t.get("name") or NA),
                   memory=format_bytes(t.get("memory_bytes")))


def short_name(name: str) -> str:
    """A card's name as a column's header: without what its parentheses add and without its maker, where a name of
    two words or more is left ('Huawei Ascend 910B3' -> 'Ascend 910B3'; 'NVIDIA L4' stays)."""
    bare = re.sub(r"\s*\([^)]*\)", "", name).strip() or name
    maker = next((m for m in _TWO_WORD_MAKERS if bare.startswith(m + " ")), bare.split(" ", 1)[0])
    rest = bare[len(maker):].strip()
    return rest if len(rest.split()) >= 2 else bare


def _short_bytes(value: Any) -> str:
    """'64 GiB' for 64.0 GiB: a header's memory, whole where it is."""
    return re.sub(r"\.0 ", " ", format_bytes(value))


def target_header(t: Mapping[str, Any]) -> Any:
    """A target's column header in the verdicts: 'Ascend 910B3 64 GiB', 'A100 80GB' (its name says its memory),
    '32 GiB card', 'free now 11.2 GiB'."""
    kind, memory = _kind(t), _short_bytes(t.get("memory_bytes"))
    if kind != "card":
        return message(f"workload.fit.short.{kind}", memory=memory)
    name = short_name(str(t.get("name") or NA))
    if is_finite(t.get("memory_bytes")) and re.search(rf"\b{round(t['memory_bytes'] / 2**30)}\s?GB\b", name):
        return name
    return message("workload.fit.short.card", name=name, memory=memory)


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


def _estimate_row(row: Mapping[str, Any]) -> list[Any]:
    cells: list[Any] = [_use(row)]
    for key, _label in COLUMNS[1:]:
        if key == "trained_bytes":
            parts = [row.get("gradients_bytes"), row.get("optimizer_bytes")]
            cells.append(format_bytes(sum(parts)) if all(is_finite(p) for p in parts) else NA)
        else:
            cells.append(format_bytes(row.get(key)))
    return cells


def estimate_table(metrics: Mapping[str, Any]) -> Table:
    """(heading, columns, rows) of the estimate: a row per use, what it needs on one card and its parts."""
    heading = message("workload.fit.heading", model=str(metrics.get("model_size") or NA),
                      dtype=str(metrics.get("fit_dtype") or metrics.get("dtype") or NA),
                      batch=metrics.get("fit_batch") or metrics.get("batch_size") or NA,
                      context=metrics.get("fit_context") or NA, prefill=metrics.get("fit_prefill") or NA)
    return heading, [label for _, label in COLUMNS], [_estimate_row(r) for r in _rows(metrics)]


def _rated(value: Any, unit: str) -> Any:
    return f"{format_number(value)} {unit}" if is_finite(value) else Message("workload.fit.no_figure")


def _rate(value: Any) -> Any:
    return message("workload.fit.rate", rate=format_number(value, 3)) if is_finite(value) else Message(
        "workload.fit.no_figure")


def _per_target(metrics: Mapping[str, Any], targets: list[dict]) -> list[list[Any]]:
    """The verdicts' rows a target: its longest context; a card's rated figures, the bounds they give and the cost
    at the price (a size or free memory has no rated figure: its cells are empty)."""
    out = [[message("workload.fit.line.longest_context", batch=metrics.get("fit_batch") or NA)]
           + [format_number(t.get("longest_context")) for t in targets]]
    if not any(t.get("kind") == "card" for t in targets):
        return out

    def row(label: Any, cell: Callable[[Mapping[str, Any]], Any]) -> list[Any]:
        return [label] + [cell(t) if t.get("kind") == "card" else "" for t in targets]

    dtype = str(metrics.get("fit_dtype") or NA)
    out += [row(Message("workload.fit.line.bandwidth"), lambda t: _rated(t.get("bandwidth_gbps"), "GB/s")),
            row(Message("workload.fit.line.decode_bound"), lambda t: _rate(t.get("decode_bound_tokens_per_s"))),
            row(message("workload.fit.line.peak", dtype=dtype), lambda t: _rated(t.get("peak_tflops"), "TFLOP/s")),
            row(message("workload.fit.line.prefill_bound", dtype=dtype),
                lambda t: _rate(t.get("prefill_bound_tokens_per_s")))]
    price = metrics.get("fit_price_per_hour")
    if is_finite(price):
        out.append(row(message("workload.fit.line.cost", price=format_number(price),
                               currency=str(metrics.get("fit_currency") or "")),
                       lambda t: format_number(t.get("cost_per_million_tokens"), 3)))
    return out


def verdict_table(metrics: Mapping[str, Any]) -> Table:
    """(heading, columns, rows) of the verdicts: a row per use, a column per target under a short header (the
    heading says each in full), then each target's longest context, rated figures, bounds and cost."""
    rows = _rows(metrics)
    targets, verdicts = _targets(metrics, rows)
    said = [target_label(t) for t in targets]
    heading = message("workload.fit.heading.verdicts", model=str(metrics.get("model_size") or NA),
                      targets=Joined(tuple(said)) if said else NA)
    columns = [Message("workload.fit.column.use_or_figure")] + [target_header(t) for t in targets]
    table = [[_use(r)] + [_verdict(v) for v in vs] for r, vs in zip(rows, verdicts)]
    return heading, columns, table + (_per_target(metrics, targets) if targets and "fit_targets" in metrics else [])


def runtime_table(metrics: Mapping[str, Any]) -> Table:
    """(heading, columns, rows) of the runtime's lines of the inference estimate and accelerate's figures, each
    labelled as the result's figure is; no rows for a run that has none."""
    heading = message("workload.fit.heading.runtime", share=percent(ALLOCATOR_SHARE))
    columns = [Message("workload.fit.column.line"), Message("workload.fit.column.bytes")]
    if not any(key in metrics for key in RUNTIME_LINES):
        return heading, columns, []
    return heading, columns, [[_label(key), format_bytes(metrics.get(key))] for key in RUNTIME_LINES]


def _label(key: str) -> Any:
    figure = FitFigures.figure(key)
    assert figure is not None, key   # RUNTIME_LINES names the record's own figures
    return figure.label


TABLES: tuple[Callable[[Mapping[str, Any]], Table], ...] = (estimate_table, verdict_table, runtime_table)


def tables(metrics: Mapping[str, Any]) -> list[Table]:
    """The three tables, in order: the estimate, the verdicts, the runtime's lines."""
    return [table(metrics) for table in TABLES]


def lines(metrics: Mapping[str, Any]) -> list[str]:
    """The plan's tables as aligned lines, one under another, for the log of a --fit-only run of llm or finetune."""
    return [line for table in tables(metrics) for line in text_lines(*table)]
