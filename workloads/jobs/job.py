"""The user's command in its own process group, with a guard, and the loop that reads what it prints.

:meth:`Job.start` starts the guard (:mod:`workloads.jobs.guard`) in a new process group, then the
command in that group, with its stdout and stderr on one pipe (so their lines keep the order a
terminal would show). :meth:`Job.stop` is SIGTERM to the whole group,
SIGKILL after the grace period. :func:`pump` reads the pipe until the command has exited and its
output is drained, handing each line over and giving the caller a tick while the job is quiet.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import Callable

from workloads.jobs.output import Splitter
from workloads.jobs.procs import stats
from workloads.protocol import PARENT_PID_ENV

_TICK_S = 0.25
DRAIN_S = 1.0  # after the command exits, how long a process it left behind may keep the pipe open


class Job:
    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None, grace_s: float = 3.0):
        self.argv = argv
        self.env = dict(os.environ if env is None else env)
        # the runner's pid is ours to watch, not the job's: a cardbench workload run as the job would take
        # it for its own runner and exit at once
        self.env.pop(PARENT_PID_ENV, None)
        # a Python job writes its lines as it prints them, not in 8 KiB blocks, so progress is live
        self.env.setdefault("PYTHONUNBUFFERED", "1")
        self.grace_s = grace_s
        self.process: subprocess.Popen | None = None
        self.guard: subprocess.Popen | None = None
        self.group: int | None = None  # the job's process group: the guard's pid (it leads it), else the job's
        self.splitter = Splitter()  # one for the job's life: a line cut by a stop is finished by the next read
        self.reaping = False  # this process is a subreaper (Linux): the job's escaped descendants come back to it

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        """Start the guard, then the command in the guard's group (OSError when it cannot be executed).

        The guard comes first, so there is no moment when the job runs unguarded: a child killed just
        after starting it would otherwise leave it behind. This process becomes a subreaper first, so what the
        job starts in a session of its own (setsid, a daemon's double fork) comes back to it when orphaned,
        where :meth:`stop_leftovers` finds it.
        """
        self.reaping = become_subreaper()
        try:
            self.guard = subprocess.Popen([sys.executable, "-m", "workloads.jobs.guard", str(self.grace_s)],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, process_group=0)
        except (OSError, subprocess.SubprocessError):
            self.guard = None  # the job still runs in a group of its own, and a stop still takes all of it
        try:
            self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, env=self.env,
                                            process_group=self.guard.pid if self.guard is not None else 0)
        except BaseException:
            self.release()
            raise
        self.group = self.guard.pid if self.guard is not None else self.process.pid

    def signal_group(self, sig: int) -> None:
        if self.group is None:
            return
        try:
            os.killpg(self.group, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, on_line: Callable[[str, str], None], tick: Callable[[], None] = lambda: None) -> None:
        """SIGTERM to the group, its output still read; SIGKILL after the grace period."""
        self.signal_group(signal.SIGTERM)
        if self.process is not None:
            pump(self, on_line, tick, deadline=time.monotonic() + self.grace_s)
        if self.process is not None and self.process.poll() is None:
            on_line(f"[cardbench] the command ignored SIGTERM for {self.grace_s:g} s; sending SIGKILL", "\n")
            self.signal_group(signal.SIGKILL)
            self.process.wait()
        self.release()

    def release(self) -> None:
        """Let the guard go: it takes down what the job left in its group, then exits."""
        if self.guard is None:
            return
        try:
            self.guard.stdin.close()
        except OSError:
            pass
        try:
            self.guard.wait(timeout=self.grace_s + 2.0)
        except subprocess.TimeoutExpired:
            pass
        self.guard = None

    def stop_leftovers(self) -> list[int]:
        """SIGTERM, then SIGKILL after the grace period, to every process the job left running outside its group
        (setsid, a double-forked daemon): they were re-parented to this subreaper. Returns their pids.

        Each sweep looks again, so what one of them starts while it is stopped (a supervisor that respawns its
        worker on SIGTERM) is stopped too; each process gets one SIGTERM, which many read as "shut down cleanly"
        where a second would mean "now".
        """
        if not self.reaping:
            return []
        stopped: list[int] = []

        def sweep(sig: int) -> list[int]:
            _reap()
            left = descendants(os.getpid())
            for pid in left:
                if sig == signal.SIGKILL or pid not in stopped:
                    _kill(pid, sig)
                if pid not in stopped:
                    stopped.append(pid)
            return left

        deadline = time.monotonic() + self.grace_s
        while sweep(signal.SIGTERM) and time.monotonic() < deadline:
            time.sleep(0.05)
        deadline = time.monotonic() + 2.0   # SIGKILL cannot be refused: this is only the kernel's time to act
        while sweep(signal.SIGKILL) and time.monotonic() < deadline:
            time.sleep(0.02)
        return stopped


_PR_SET_CHILD_SUBREAPER = 36   # linux/prctl.h


def become_subreaper() -> bool:
    """prctl(PR_SET_CHILD_SUBREAPER): orphaned descendants re-parent to this process, not to init. False where
    there is no prctl (not Linux): then a daemon that left the job's session is not found."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """Live descendants of ``root`` (Linux: /proc), zombies left out."""
    children: dict[int, list[int]] = {}
    for pid, state, parent, _ in stats():
        if state != b"Z":
            children.setdefault(parent, []).append(pid)
    found, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _reap() -> None:
    """Collect exited children (the re-parented daemons are ours to wait for now)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def pump(job: Job, on_line: Callable[[str, str], None], tick: Callable[[], None] = lambda: None,
         deadline: float | None = None) -> None:
    """Read the job's output until it is drained after the job's exit (or ``deadline``, monotonic)."""
    assert job.process is not None and job.process.stdout is not None
    stream = job.process.stdout
    if stream.closed:
        return
    fd = stream.fileno()
    splitter = job.splitter
    drain_until: float | None = None
    while True:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            break
        if drain_until is None and job.process.poll() is not None:
            drain_until = now + DRAIN_S
        if drain_until is not None and now >= drain_until:
            break
        ready, _, _ = select.select([fd], [], [], _TICK_S)
        if ready:
            data = os.read(fd, 65536)
            if not data:
                stream.close()
                break
            for text, ended in splitter.feed(data):
                on_line(text, ended)
        tick()
    for text, ended in splitter.close():
        on_line(text, ended)
    if stream.closed:
        job.process.wait()
