"""The report's microbenchmark table from a run's result (torch-free): each figure beside its rated one."""

from __future__ import annotations

from typing import Any, Mapping

HEADING = "Microbenchmarks against the device's rated figures"
COLUMNS = ["part", "figure", "measured", "rated", "measured / rated", "rated figure's source", "note"]
NA = "N/A"


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
        out.append([str(f.get("part", "")), str(f.get("figure", "")), measured,
                    value(f.get("rated"), f.get("unit", "")), percent, str(f.get("source") or ""),
                    str(f.get("note") or "")])
    return out


def report_table(metrics: Mapping[str, Any]) -> tuple[str, list[str], list[list[str]]]:
    figures = [f for f in metrics.get("figures") or [] if isinstance(f, Mapping)]
    return HEADING, list(COLUMNS), rows(figures)


def lines(figures: list[Mapping[str, Any]]) -> list[str]:
    """The same table as aligned text lines, for run.log."""
    table = [COLUMNS[:5]] + [r[:5] for r in rows(figures)]
    widths = [max(len(r[i]) for r in table) for i in range(5)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in table]
