"""A CSV table as text, as the bundle's metrics/*.csv are written (UI-free)."""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable, Sequence


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """The header and the rows, '\\n'-terminated; None is an empty cell (the csv module writes it so)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()
