"""The report's microbenchmark table from a run's result (torch-free): each figure beside its rated one."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message
from workloads.facts.missing import NA

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


def value(number: Any, unit: str) -> str:
    if number is None:
        return NA
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return str(number)
    text = f"{number:,.0f}" if abs(number) >= 1000 else f"{number:.3g}"
    return f"{text} {unit}".strip()


def rows(figures: list[Mapping[str, Any]]) -> list[list[str]]:
    out = []
    for f in figures:
        percent = f"{f['percent']:.1f} %" if isinstance(f.get("percent"), (int, float)) else NA
        measured = value(f.get("measured"), f.get("unit", ""))
        part = str(f.get("part", ""))
        out.append([PARTS.get(part, part), str(f.get("figure", "")), measured,
                    value(f.get("rated"), f.get("unit", "")), percent, str(f.get("source") or ""),
                    str(f.get("note") or "")])
    return out


def report_table(metrics: Mapping[str, Any]) -> tuple[Message, list[Message], list[list[Any]]]:
    figures = [f for f in metrics.get("figures") or [] if isinstance(f, Mapping)]
    return HEADING, list(COLUMNS), rows(figures)


def lines(figures: list[Mapping[str, Any]]) -> list[str]:
    """The same table as aligned text lines, for run.log."""
    table = [[c.en for c in COLUMNS[:5]]] + [[c.en if isinstance(c, Message) else c for c in r[:5]]
                                           for r in rows(figures)]
    widths = [max(len(r[i]) for r in table) for i in range(5)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in table]
