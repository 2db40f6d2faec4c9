"""The data-IO run's figures as the result holds them, the report's sweep table and the log's lines. Torch-free."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloads.catalogue import Message, message
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


def sweep_row(row: Mapping[str, Any]) -> list[str]:
    workers = row.get("workers")
    marked = f"{workers}" + (" (pinned)" if row.get("pin_memory") else "")
    rate = _cell(row.get("images_per_s")) if not row.get("error") else f"failed: {row['error']}"[:80]
    return [marked, rate, _cell(row.get("cores_busy"), 1), _cell(row.get("h2d_gb_s"), 2)]


def sweep_line(row: Mapping[str, Any]) -> str:
    cells = sweep_row(row)
    return f"{cells[0]} worker(s): {cells[1]} images/s, {cells[2]} CPU cores busy, host -> device {cells[3]} GB/s"


def report_table(metrics: Mapping[str, Any]) -> tuple[Message, list[Message], list[list[str]]]:
    """The loader sweep, the verdict's line in the heading."""
    rows = [r for r in metrics.get("loader") or [] if isinstance(r, dict)]
    line = str(metrics.get("verdict_line") or "no verdict")[:300]
    heading = message("workload.dataio.table.heading", line=line)
    return heading, list(SWEEP_COLUMNS), [sweep_row(r) for r in rows]


def terminal_lines(metrics: Mapping[str, Any]) -> list[str]:
    """The sweep as aligned text, then the verdict, for run.log."""
    rows = [[c.en for c in SWEEP_COLUMNS]] + [sweep_row(r) for r in metrics.get("loader") or []]
    widths = [max(len(r[i]) for r in rows) for i in range(len(SWEEP_COLUMNS))]
    lines = ["dataio: loader sweep"] + ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    source = metrics.get("consumer_source")
    lines.append(f"dataio: the card's rate: {source or 'none'}")
    lines.append(f"dataio: verdict: {metrics.get('verdict_line')}")
    return lines
