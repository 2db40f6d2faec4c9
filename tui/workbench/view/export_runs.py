"""Which run directories the workbench's export (`e`) takes. UI-free.

    report_run_dirs(store, session_runs, loaded_runs)
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from tui.store import RunStore


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
