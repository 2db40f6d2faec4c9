"""A report's table as aligned text lines (torch-free): a workload's `report_table` (its heading, columns and cells)
said in English, for run.log and the terminal, so the lines show the cells the report's table shows."""

from __future__ import annotations

import unicodedata
from typing import Any, Callable, Sequence

ROWS_SHOWN = 24   # more would scroll the run's own lines off a terminal; the report and events.jsonl have them all


def _en(said: Any) -> str:
    """A catalogue message's English (what run.log and the terminal carry), any other cell as written."""
    return said.en if hasattr(said, "en") else str(said)


def width(text: str) -> int:
    """The columns ``text`` takes on a terminal: a wide character (Chinese) takes two, so a Chinese table aligns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def text_lines(heading: Any, columns: Sequence[Any], rows: Sequence[Sequence[Any]], *,
               more: Callable[[int], Any] | None = None, limit: int = ROWS_SHOWN) -> list[str]:
    """The heading, then the column labels (their units in them) and each row, every column as wide as its widest
    cell; past ``limit`` rows, ``more(rows left out)`` says where the rest is. No rows: no lines."""
    if not rows:
        return []
    shown = [[_en(c) for c in r] for r in rows[:limit]]
    table = [[_en(c) for c in columns]] + shown
    widths = [max(width(r[i]) for r in table if i < len(r)) for i in range(len(table[0]))]
    out = [_en(heading)] + ["  " + "  ".join(c + " " * (w - width(c)) for c, w in zip(r, widths)).rstrip()
                            for r in table]
    if len(rows) > limit and more is not None:
        out.append("  " + _en(more(len(rows) - limit)))
    return out
