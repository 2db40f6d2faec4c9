"""The workbench's `b`: a backup to the destination kept by `cardbench trial --backup-dest`, in a thread worker.

The backup itself is `tui.backup` (UI-free, the same as `cardbench backup`); this only starts it off the UI
thread and brings its lines (progress every few seconds, the result or the one-line error) to the log.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable

from textual.app import App

from tui.backup.engine import check_dest, open_destination, run_backup, sources_for
from tui.backup.errors import BackupError
from tui.backup.progress import ProgressLine
from tui.backup.sources import SourceError
from tui.trial.config import load_quietly

Say = Callable[..., Any]   # the log pane's say(text, style)
GROUP = "backup"


class _Lines:
    """A stream for ProgressLine whose lines go to the log (not a terminal: a line every few seconds)."""

    def __init__(self, tell: Callable[[str], None]):
        self.tell = tell

    def write(self, text: str) -> None:
        if text.strip():
            self.tell(text.strip())

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def start_backup(app: App, runs_root: Path, say: Say, *, dest: str | None = None,
                 report_dirs: Iterable[Path] | None = None) -> bool:
    """Start a backup unless one is running or no destination is kept; False (and a line saying why) if not."""
    dest = dest or load_quietly().backup_dest
    if not dest:
        say("no backup destination: `cardbench trial --backup-dest DEST` (a folder or remote:bucket/prefix) "
            "sets the one b uses", "yellow")
        return False
    if any(worker.group == GROUP and worker.is_running for worker in app.workers):
        say("a backup is already running", "yellow")
        return False
    say(f"backing up runs, checkpoints and report bundles to {dest}...", "bold")
    app.run_worker(partial(_backup, app, dest, runs_root, say, report_dirs), thread=True, group=GROUP,
                   exit_on_error=False, description=f"backup to {dest}")
    return True


def _backup(app: App, dest: str, runs_root: Path, say: Say, report_dirs: Iterable[Path] | None) -> None:
    def tell(text: str, style: str = "") -> None:
        app.call_from_thread(say, text, style)

    try:
        check_dest(dest, runs_root)
        target = open_destination(dest)
        gathered = sources_for(target, runs_root, report_dirs=report_dirs)
        for note in gathered.notes:
            tell(f"backup: {note}", "yellow")
        result = run_backup(dest, gathered, progress=ProgressLine(_Lines(tell)), destination=target)
    except (BackupError, SourceError) as exc:
        tell(str(exc), "bold red")
        return
    except OSError as exc:   # what the backup did not foresee still reaches the log as a line
        tell(f"cardbench backup: {exc}", "bold red")
        return
    for line in result.lines():
        tell(line)
