"""The data-IO run's figures as the result holds them, the report's sweep table (its heading the verdict, said in the
report's language by words.py) and the same as English lines for run.log. Torch-free."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloads.catalogue import Message, message
from workloads.dataio.words import card_words, verdict_words
from workloads.facts.missing import NA

SWEEP_COLUMNS = (Message("workload.dataio.column.workers"), Message("workload.dataio.column.images_per_s"),
                 Message("workload.dataio.column.cores_busy"), Message("workload.dataio.column.h2d_gb_s"))


def survey_metrics(s: Any) -> dict[str, Any]:
    """The survey's figures for the result (a ``survey.Survey``)."""
    sizes = s.sizes()
    return {"data_where": s.mount.describe() if s.mount else "mount unknown",
            "fs_type": s.mount.fs_type if s.mount else None, "data_kind": s.mount.kind if s.mount else None,
            "free_bytes": s.free_bytes, "files": s.files, "images": s.images, "data_bytes": s.bytes_seen,
            "survey_complete": s.complete, "median_file_bytes": sizes.get("median"),
            "p90_file_bytes": sizes.get("p90"), "largest_file_bytes": sizes.get("max"),
            "unreadable": s.unreadable, "link_loops": s.loops, "oversize": s.oversize}


def _cell(value: Any, digits: int = 0) -> str:
    return f"{value:,.{digits}f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else NA


def sweep_row(row: Mapping[str, Any]) -> list[str | Message]:
    """One setting's cells; the words in them (pinned, failed) said in the reader's language."""
    workers = str(row.get("workers"))
    marked = message("workload.dataio.cell.pinned", workers=workers) if row.get("pin_memory") else workers
    rate = (_cell(row.get("images_per_s")) if not row.get("error") else
            message("workload.dataio.cell.failed", error=str(row["error"])[:72]))
    return [marked, rate, _cell(row.get("cores_busy"), 1), _cell(row.get("h2d_gb_s"), 2)]


def sweep_line(row: Mapping[str, Any]) -> str:
    cells = [str(c) for c in sweep_row(row)]
    return f"{cells[0]} worker(s): {cells[1]} images/s, {cells[2]} CPU cores busy, host -> device {cells[3]} GB/s"


def report_table(metrics: Mapping[str, Any]) -> tuple[Message, list[Message], list[list[str | Message]]]:
    """The loader sweep, the verdict's sentence in the heading (said from the result's figures)."""
    rows = [r for r in metrics.get("loader") or [] if isinstance(r, dict)]
    line = verdict_words(metrics)
    heading = message("workload.dataio.table.heading", line=line if callable(line) else line[:300])
    return heading, list(SWEEP_COLUMNS), [sweep_row(r) for r in rows]


def terminal_lines(metrics: Mapping[str, Any]) -> list[str]:
    """The sweep as aligned text, then the card's rate and the verdict: run.log's and the terminal's table."""
    rows = [[c.en for c in SWEEP_COLUMNS]] + [[str(c) for c in sweep_row(r)] for r in metrics.get("loader") or []
                                              if isinstance(r, dict)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(SWEEP_COLUMNS))]
    lines = ["dataio: loader sweep"] + ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    card = card_words(metrics).en if metrics.get("consumer_basis") else metrics.get("consumer_source") or "none"
    lines.append(f"dataio: the card's rate: {card}")
    lines.append(f"dataio: verdict: {verdict_words(metrics)}")
    return lines
