"""The report's microbenchmark table from a run's result (torch-free): each figure beside its rated one, its words
in the reader's language (`workloads.microbench.words`)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, Said, message, say
from workloads.facts.missing import NA
from workloads.microbench import words

HEADING = Message("workload.microbench.heading")
COLUMNS = [
    Message("workload.microbench.column.part"),
    Message("workload.microbench.column.figure"),
    Message("workload.microbench.column.measured"),
    Message("workload.microbench.column.rated"),
    Message("workload.microbench.column.measured_rated"),
    Message("workload.microbench.column.rated_figure_s_source"),
    Message("workload.microbench.column.note"),
]
PARTS = {
    "gemm": Message("workload.microbench.part.gemm"),
    "memory": Message("workload.microbench.part.memory"),
    "transfer": Message("workload.microbench.part.transfer"),
    "launch": Message("workload.microbench.part.launch"),
    "burn": Message("workload.microbench.part.burn"),
    "collectives": Message("workload.microbench.part.collectives"),
}
HOST_MEMORY = Message("workload.microbench.part.memory_host")  # on the CPU the memory measured is the host's


def value(number: Any, unit: str) -> str:
    if number is None:
        return NA
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return str(number)
    text = f"{number:,.0f}" if abs(number) >= 1000 else f"{number:.3g}"
    return f"{text} {unit}".strip()


def measured(f: Mapping[str, Any]) -> Any:
    if f.get("unit") == "us" and isinstance(f.get("measured"), (int, float)):
        return message("workload.microbench.row.us", number=value(f["measured"], ""))
    return value(f.get("measured"), f.get("unit", ""))


def said(f: Mapping[str, Any], parts: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """A row's figure, measured value and note in the reader's language, from its part's measurements in
    ``parts``; the row's own English where the part has none (run.log's table, a row of a part this reads not)."""
    written = str(f.get("figure", "")), measured(f), str(f.get("note") or "")
    part, key = str(f.get("part", "")), str(f.get("key", ""))
    raw = parts.get(part)
    if key == f"{part}_failed" and isinstance(raw, Mapping):
        return PARTS.get(part, part), written[1], words.failed(raw)
    found: tuple[Any, ...] | None = None
    if part == "gemm" and isinstance(raw, list):
        found = words.gemm(f, raw)
    elif part == "burn" and isinstance(raw, Mapping):
        found = words.burn(raw)
    elif isinstance(raw, Mapping):
        found = {"memory": words.memory, "launch": words.launch, "transfer": words.transfer,
                 "collectives": words.collective}.get(part, lambda *_: None)(f, raw)
    if found is None:
        return written
    if len(found) == 2:
        return found[0], written[1], found[1]
    return found[0], written[1] if found[1] is None else found[1], found[2]


def source(f: Mapping[str, Any], parts: Mapping[str, Any]) -> Any:
    """Where the rated figure was read: a transfer's is the link, said in the reader's language; a data sheet's
    name and date as written."""
    link = (parts.get("transfer") or {}).get("link") if isinstance(parts.get("transfer"), Mapping) else None
    if f.get("part") == "transfer" and f.get("source") and isinstance(link, Mapping):
        return words.pcie(link)
    return str(f.get("source") or "")


def rows(figures: list[Mapping[str, Any]], parts: Mapping[str, Any] | None = None,
         host: bool = False) -> list[list[Any]]:
    """The table's rows; ``host``: the memory part measured the host's memory (a run on the CPU)."""
    out = []
    for f in figures:
        percent = f"{f['percent']:.1f} %" if isinstance(f.get("percent"), (int, float)) else NA
        part = str(f.get("part", ""))
        figure, measured_, note = said(f, parts or {})
        name = PARTS.get(part, part) if not (host and part == "memory") else HOST_MEMORY
        out.append([name, figure, measured_, value(f.get("rated"), f.get("unit", "")), percent,
                    source(f, parts or {}), note])
    return out


def report_table(metrics: Mapping[str, Any]) -> tuple[Message, list[Message], list[list[Any]]]:
    figures = [f for f in metrics.get("figures") or [] if isinstance(f, Mapping)]
    parts = metrics.get("parts") if isinstance(metrics.get("parts"), Mapping) else {}
    host = metrics.get("rated_note") == say("workload.microbench.rated_note.cpu")
    return HEADING, list(COLUMNS), rows(figures, parts, host)


def lines(figures: list[Mapping[str, Any]]) -> list[str]:
    """The same table as aligned text lines, for run.log."""
    table = [[c.en for c in COLUMNS[:5]]] + [[c.en if isinstance(c, Said) else c for c in r[:5]]
                                           for r in rows(figures)]
    widths = [max(len(r[i]) for r in table) for i in range(5)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in table]
