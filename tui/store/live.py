"""Runs in progress on this machine, as the run store shows them: ``<run>/live.json`` and its heartbeat. UI-free.

    marker = LiveMarker(run.path, detached=True).start()   # cardbench run, as the run is created
    marker.set_child(runner.pid)                            # once the workload child is up
    marker.remove()                                         # the run has ended
    live_runs(store.root)                                   # [LiveRun, ...] in progress here, oldest first
    stop_live(live)                                         # SIGTERM to its group, SIGKILL after a grace

live.json holds the recording process's pid, its process group, its start time,
the host, whether it was started detached and the workload child's pid. The
process touches the file every :data:`HEARTBEAT_S` and removes it when the run
ends. A run is in progress when all of these hold: the host is this one, the pid
is alive and not a zombie, it is the same process (its start time matches, so a
reused pid is not taken for it), the file was touched within :data:`STALE_S`, and
the process provably records this run (:func:`records`: the kernel lists the run's
own files among those it holds open for writing). A run that crashed (or was killed
with SIGKILL) leaves its file behind, and it fails these: a stale pid file is never
listed. live.json is anyone's to write (issue 37 item 14: a hand-written one named an
unrelated process, which was listed and then killed, its whole group too): what it
says of the process is a claim that the kernel must confirm, never the reason to signal.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import psutil

from tui.files import write_atomically
from workloads.rundir import EVENTS, LIVE, LOG, TELEMETRY

LIVE_FILE = LIVE
HEARTBEAT_S = 5.0    # how often the recording process touches live.json
STALE_S = 30.0       # a live.json untouched for longer is a run that is no longer recorded
# a stop waits this long after SIGTERM before SIGKILL: `cardbench run` itself gives its child 5 s (tui.session)
STOP_GRACE_S = 12.0
_SAME_PROCESS_S = 1.0  # a process's start time as psutil reads it twice differs by less than this


@dataclass(frozen=True)
class LiveRun:
    """One run in progress: where it is and the processes that record and run it."""

    path: Path
    pid: int                 # the recording process (`cardbench run`)
    pgid: int                # its process group: its own pid when it was started detached
    started: float           # the recording process's start time (epoch seconds)
    detached: bool
    child_pid: int | None    # the workload child, in a process group of its own
    workload: str
    beat: float              # when live.json was last touched

    @property
    def id(self) -> str:
        return self.path.name


def _process_start(pid: int) -> float | None:
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return process.create_time()
    except (psutil.Error, OSError):
        return None


# the files the recording process holds open for appending while it records (tui.store.Run): events.jsonl and
# run.log from the run's creation, telemetry.jsonl from its first sample; a rotation reopens one at a time
_RECORDED = frozenset({EVENTS, LOG, TELEMETRY})


def records(pid: int, run_path: Path) -> bool:
    """Whether the process ``pid`` provably records the run at ``run_path``: the kernel lists, among the files it
    holds open for writing, one of the run's own (events.jsonl, run.log, telemetry.jsonl) in that very directory.

    Only the run's recorder writes there: a reader (the workbench following it, ``tail -f``) holds them read-only,
    and an unrelated process named by a hand-written live.json holds none of them. The directory is the real one
    and not a link (a run directory linked to another process's folder would lend it that folder's files), and the
    kernel's path of each open file names the file as it was opened, so a run file that links elsewhere does not
    match either. A process this one may not inspect (another user's) is not provably the run's.
    """
    try:
        if os.path.islink(run_path):
            return False
        home = os.path.realpath(run_path)
        opened = psutil.Process(pid).open_files()
    except (psutil.Error, OSError):
        return False
    for item in opened:
        # the mode is known on Linux (from fdinfo); elsewhere psutil gives the path alone
        writing = getattr(item, "mode", "a") != "r"
        if writing and os.path.dirname(item.path) == home and os.path.basename(item.path) in _RECORDED:
            return True
    return False


def leads_a_session(pid: int) -> bool:
    """Whether ``pid`` leads a session of its own, as `tui.detach.start_detached` makes a detached run: only then is
    its process group its own to signal (a file saying "detached" is not enough: `cardbench run x | tee log` leads
    a group holding tee, and a shell's job holds the shell's other commands)."""
    try:
        return os.getsid(pid) == pid
    except OSError:
        return False


def not_provably(live: LiveRun) -> str:
    """The one line a refused stop says."""
    return (f"run {live.id}: pid {live.pid} is not provably its process (it holds none of the run's files open for "
            "writing); nothing was signalled")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write whole or not at all: a reader never sees half a file."""
    write_atomically(path, json.dumps(data) + "\n", mode=0o644)


class LiveMarker:
    """The recording process's side: live.json written, touched by a daemon thread, removed at the end.

    A run directory that stops taking writes only makes the run look stale (it is not listed): the run goes on.
    """

    def __init__(self, run_path: Path, *, detached: bool, workload: str = "", interval: float = HEARTBEAT_S):
        self.path = Path(run_path) / LIVE_FILE
        self.interval = interval
        started = _process_start(os.getpid()) or time.time()
        self.data: dict[str, Any] = {"pid": os.getpid(), "pgid": os.getpgid(0), "started": started,
                                     "host": socket.gethostname(), "detached": detached, "child_pid": None,
                                     "workload": workload}
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def _write(self) -> None:
        try:
            _write_json(self.path, self.data)
        except OSError:
            pass

    def start(self) -> "LiveMarker":
        self._write()
        self._thread = threading.Thread(target=self._beat, name="cardbench-live-marker", daemon=True)
        self._thread.start()
        return self

    def _beat(self) -> None:
        while not self._done.wait(self.interval):
            try:
                os.utime(self.path)
            except OSError:
                pass

    def set_child(self, pid: int | None) -> None:
        if pid is not None and pid != self.data["child_pid"]:
            self.data["child_pid"] = pid
            self._write()

    def remove(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval + 1.0)
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass


def read_live(run_path: Path, *, now: float | None = None, host: str | None = None) -> LiveRun | None:
    """The run's LiveRun when it is in progress on this machine (see the module's rules), else None."""
    path = Path(run_path) / LIVE_FILE
    try:
        beat = path.stat().st_mtime
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    now = time.time() if now is None else now
    pid, started = data.get("pid"), data.get("started")
    if not (isinstance(pid, int) and pid > 0 and isinstance(started, (int, float))):
        return None
    if data.get("host") != (host or socket.gethostname()) or now - beat > STALE_S:
        return None
    actual = _process_start(pid)
    if actual is None or abs(actual - started) > _SAME_PROCESS_S:
        return None  # gone, a zombie, or its pid now belongs to another process
    if not records(pid, Path(run_path)):
        return None  # the file's word only: a process that does not record this run is not listed, so never stopped
    pgid, child = data.get("pgid"), data.get("child_pid")
    return LiveRun(path=Path(run_path), pid=pid, pgid=pgid if isinstance(pgid, int) and pgid > 0 else pid,
                   started=float(started), detached=data.get("detached") is True and leads_a_session(pid),
                   child_pid=child if isinstance(child, int) and child > 0 else None,
                   workload=data.get("workload") if isinstance(data.get("workload"), str) else "", beat=beat)


def live_runs(root: Path) -> list[LiveRun]:
    """Runs in progress on this machine under the runs dir ``root``, oldest first."""
    try:
        candidates = sorted(p for p in Path(root).iterdir() if (p / LIVE_FILE).is_file())
    except OSError:
        return []
    now = time.time()
    return [live for live in (read_live(p, now=now) for p in candidates) if live is not None]


def wait_for_live(root: Path, pid: int, timeout: float) -> LiveRun | None:
    """The run the process ``pid`` (just started detached) records, once its live.json is there; None when the
    process ended first, or after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for marker in Path(root).glob(f"*/{LIVE_FILE}"):
            live = read_live(marker.parent)
            if live is not None and live.pid == pid:
                return live
        if _process_start(pid) is None:
            return None
        time.sleep(0.1)
    return None


def is_alive(live: LiveRun) -> bool:
    started = _process_start(live.pid)
    return started is not None and abs(started - live.started) <= _SAME_PROCESS_S


def _wait_gone(live: LiveRun, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while is_alive(live):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def _signal(live: LiveRun, sig: int) -> None:
    """To its whole group when detached and it leads a session of its own (the kernel's word, not the file's);
    else only to it, whose group is a shell's (`cardbench run x | tee log` leads its group too, and tee is not ours
    to stop)."""
    try:
        if live.detached and leads_a_session(live.pid):
            os.killpg(live.pid, sig)
        else:
            os.kill(live.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_live(live: LiveRun, grace_s: float = STOP_GRACE_S, say: Callable[[str], None] | None = None) -> str:
    """Stop a run in progress: SIGTERM (it stops its workload and records the end), SIGKILL after ``grace_s``.

    Blocking: call it off the UI thread. Returns one line saying how it went.
    """
    say = say or (lambda line: None)
    if not is_alive(live):
        return f"run {live.id} is no longer running"
    if not records(live.pid, live.path):
        return not_provably(live)   # checked again now, whoever made ``live``: never a file's word alone
    _signal(live, signal.SIGTERM)
    if _wait_gone(live, grace_s):
        return f"run {live.id} stopped (SIGTERM to pid {live.pid})"
    say(f"run {live.id} ignored SIGTERM for {grace_s:.0f} s; sending SIGKILL")
    # the workload child leads a group of its own (its loader workers, its ranks): it goes first, while its
    # parent still vouches for its pid
    child = live.child_pid
    if child is not None:
        try:
            if psutil.Process(child).ppid() == live.pid:
                os.killpg(child, signal.SIGKILL)
        except (psutil.Error, OSError):
            pass
    _signal(live, signal.SIGKILL)
    _wait_gone(live, 5.0)
    return f"run {live.id} killed (SIGKILL after {grace_s:.0f} s): its record ends where it was"
