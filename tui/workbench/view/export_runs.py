"""Which run directories the workbench's export (`e`) offers, what each one is, and which run's plots its
screenshot shows. UI-free.

    report_run_dirs(store, session_runs, loaded_runs)   # the runs offered
    export_rows(paths)                                  # each with its workload, status and headline
    plots_source(rows, on_screen)                       # the run whose plots the screenshot shows, or None
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tui.store import RunStore
from workloads.facts.missing import NA
from workloads.safe_text import one_line

FINISHED = "ok"   # a run's status (`RunRecord.status`) that the export takes unless the user leaves it out


def workload_of(run_dir: Path) -> str:
    """The workload a run directory's name holds: `RunStore.create` names it `YYYYmmdd-HHMMSS-<workload>-<hex>`."""
    return run_dir.name.split("-", 2)[-1].rsplit("-", 1)[0]


def report_run_dirs(store: RunStore, session_runs: Sequence[Path], loaded_runs: Sequence[Path]) -> list[Path]:
    """The runs of this session, else those loaded, else the newest run of each workload on disk."""
    if session_runs or loaded_runs:
        return list(session_runs or loaded_runs)
    newest: dict[str, Path] = {}
    for path in store.list():
        newest[workload_of(path)] = path
    return list(newest.values())


@dataclass(frozen=True)
class ExportRow:
    """One run the export offers: what the choice lists, and how many of the step plots it fills."""

    path: Path
    workload: str
    status: str        # ok / failed / stopped / incomplete, or "unreadable" (`why` says why)
    headline: str      # the report's headline text ('950 images/s'), N/A when the run has none
    plots: int = 0     # 0, 1 or 2: which of the loss and throughput plots the run has points for
    why: str = ""

    @property
    def finished(self) -> bool:
        """Checked by default: a run that ended well (a stopped, failed or cut-off run only when picked)."""
        return self.status == FINISHED


def step_plots(history: Any) -> int:
    """How many of the workbench's step plots (loss, throughput) have a line with a point in ``history``."""
    from tui.workbench.plot_lines import loss_lines, throughput_lines

    return sum(any(len(line.series) for line in lines(history)) for lines in (loss_lines, throughput_lines))


def record_history(record: Any) -> Any:
    """A `History` holding one run read from disk, as the plots would show it."""
    from tui.workbench.history import History

    history = History()
    history.add_record(record)
    return history


def export_row(path: Path) -> ExportRow:
    """The run at ``path`` read whole (a long run takes a while: call it off the UI thread); a run that cannot be
    read is a row that says so, never an exception."""
    from tui.report.report_data import headline
    from tui.report.summary import summarize
    from tui.store import RunStoreError, load_run

    try:
        record = load_run(path)
    except RunStoreError as exc:
        return ExportRow(path, workload_of(path), "unreadable", NA, why=one_line(str(exc), 200))
    return ExportRow(path, one_line(record.workload or workload_of(path), 60), one_line(record.status, 20),
                     headline(summarize(record)), step_plots(record_history(record)))


def export_rows(paths: Sequence[Path]) -> list[ExportRow]:
    return [export_row(Path(path)) for path in paths]


def plots_source(rows: Sequence[ExportRow], on_screen: int) -> Path | None:
    """The run whose step plots the screenshot should show: of ``rows`` (the runs exported), the newest of those
    that fill the most of them, a finished one before one the user stopped, when that is more than the screen
    fills now (``on_screen``: `step_plots` of the app's history); else None (a GPT-2 run on screen and no
    training run exported: the screen's own)."""
    best = max(((row.plots, row.finished) for row in rows), default=(0, False))
    if best[0] <= on_screen:
        return None
    return next(row.path for row in reversed(rows) if (row.plots, row.finished) == best)
