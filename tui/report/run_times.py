"""When a run on disk ran, by its own events: for a screen re-drawn from it later (UI-free).

A run read back after a dropped session is re-drawn minutes or hours after it ended; the times it
shows are the run's (its start event, its end event, else its last event), never the re-drawing's.
"""

from __future__ import annotations

from typing import Any, Sequence

from workloads.facts.formatting import utc, utc_clock

__all__ = ["redrawn_from", "run_span", "runs_title", "run_times"]


def run_times(record: Any) -> tuple[float | None, float | None, bool]:
    """(start, end, ended): the start event's time (else the first event's), the end event's time (else the
    last event's, and ``ended`` is False: the run was cut short)."""
    times = [event.t for event in record.events if getattr(event, "t", None) is not None]
    start = record.start.t if record.start is not None and record.start.t is not None else (
        times[0] if times else None)
    if record.end is not None and record.end.t is not None:
        return start, record.end.t, True
    return start, (times[-1] if times else None), False


def _until(start: Any, end: Any) -> str:
    """The end's clock time, with its date when that is not the start's: a day-long run ends at the time of day
    it began ('00:53:20 to 00:53:20' read as a run of no length)."""
    if utc(start, zone=False)[:10] == utc(end, zone=False)[:10]:
        return utc_clock(end)
    return utc(end, zone=False)


def run_span(record: Any) -> str:
    """'00:00:00 to 00:02:40 UTC, ok', or '00:00:00 to 00:02:40 UTC (its last event: no end event)'; the end's date
    too when it is another day's ('23:00:00 to 2026-01-02 01:00:00 UTC')."""
    start, end, ended = run_times(record)
    if ended:
        return f"{utc_clock(start)} to {_until(start, end)} UTC, {record.status}"
    return f"{utc_clock(start)} to {_until(start, end)} UTC (its last event: no end event)"


def redrawn_from(records: Sequence[Any]) -> str:
    """'re-drawn from 2 runs on disk, 2026-01-01 00:00:00 to 00:04:26 UTC': the runs' own first and last times."""
    spans = [run_times(record) for record in records]
    starts = [s for s, _, _ in spans if s is not None]
    ends = [e for _, e, _ in spans if e is not None]
    what = "the run" if len(records) == 1 else f"{len(records)} runs"
    when = f", {utc(min(starts), zone=False)} to {_until(min(starts), max(ends))} UTC" if starts and ends else ""
    return f"re-drawn from {what} on disk{when}"


def runs_title(records: Sequence[Any]) -> str:
    """The re-drawn screen's window title: what it is, and when the runs ran."""
    return f"cardbench: {redrawn_from(records)}"
