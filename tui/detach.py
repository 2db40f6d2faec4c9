"""Start a cardbench command that outlives the session that started it. UI-free, torch-free.

    pid = start_detached(["run", "resnet50", "--steps", "500"], runs_dir=Path("cardbench-runs"))

The command runs as ``python -m tui.cli --runs-dir DIR <argv...>`` in a session of
its own (setsid), so the hang-up a closed SSH or tmux session sends to its
process group never reaches it, and quitting (or killing) the workbench or the
shell that started it leaves it running. Its stdin is /dev/null and its stdout
and stderr go to ``log_path`` (default ``<runs dir>/.detached.log``, appended),
never to the terminal, which may be gone. It records into the run store like any
run; ``cardbench run`` marks the run as live there (`tui.store.live`), which is how
the workbench finds it again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from workloads.protocol import PARENT_PID_ENV

DETACHED_ENV = "CARDBENCH_DETACHED"   # "1" in a detached command's environment
ENTRY = "tui.cli"   # the module a detached command runs: tests point it at one that registers a stand-in workload
DEFAULT_LOG = ".detached.log"         # under the runs dir: what a detached command said outside its run


def start_detached(argv: list[str], *, runs_dir: Path, log_path: Path | None = None,
                   module: str | None = None) -> int:
    """Start ``python -m <module> --runs-dir <runs_dir> <argv...>`` detached; its pid (also its process group).

    Raises OSError when the runs dir or the log cannot be made or the process cannot start.
    ``module`` is the entry point to run, :data:`ENTRY` unless given.
    """
    return spawn_detached(argv, runs_dir=runs_dir, log_path=log_path, module=module).pid


def spawn_detached(argv: list[str], *, runs_dir: Path, log_path: Path | None = None,
                   module: str | None = None) -> subprocess.Popen:
    """`start_detached`, giving the process: for a starter that reads its exit status (the workbench's readiness)."""
    module = module or ENTRY
    runs_dir = Path(runs_dir).absolute()   # the child keeps our working directory, but be exact
    runs_dir.mkdir(parents=True, exist_ok=True)
    log_path = Path(log_path) if log_path is not None else runs_dir / DEFAULT_LOG
    env = {key: value for key, value in os.environ.items() if key != PARENT_PID_ENV}  # it must not die with us
    env.update({DETACHED_ENV: "1", "CARDBENCH_RUNS_DIR": str(runs_dir), "PYTHONUNBUFFERED": "1"})
    with open(log_path, "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", module, "--runs-dir", str(runs_dir), *argv],
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True, close_fds=True)
    # a long-lived starter (the workbench) reaps it when it ends: a zombie would still answer kill(pid, 0)
    threading.Thread(target=process.wait, name=f"cardbench-detached-{process.pid}", daemon=True).start()
    return process


_detached: bool | None = None


def is_detached() -> bool:
    """This process was started by :func:`start_detached` (its hang-up is not the user's).

    Read once and taken out of the environment: the workload child and what it starts (a `cardbench run` in a
    user's own job) were not started detached, and must check their arguments and answer a hang-up as usual.
    """
    global _detached
    if _detached is None:
        _detached = os.environ.pop(DETACHED_ENV, None) == "1"
    return _detached
