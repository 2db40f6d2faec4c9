"""Crash isolation: the scan runs in a worker process, and a new worker continues after the case that killed one.

The supervisor is the workload's own process (torch-free). It starts
``python -m workloads.opscan.worker``, reads its ``begin``/``row`` lines and
journals each row (:class:`~workloads.opscan.state.ScanState`). When the
worker dies in a case (a device fault, an abort, a segfault) that case is
written as ``crash``; when a case runs past ``op_timeout`` the worker's process
group is killed and the case is written as ``hang``; either way a new worker
starts at the next case. The seconds from the death (or the kill) to the new
worker's first case are kept: the time a restart costs.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from workloads.child.harness import WorkloadError, log
from workloads.opscan.state import ScanState

RECORD_TIMEOUT_S = 900.0    # building the models and recording them: once, and longest on a slow CPU


@dataclass(frozen=True)
class Lost:
    """How a worker was lost: hung in a case (no answer in ``timeout_s``) or died (``how``: a signal or an exit code,
    ``said``: its stderr's telling line). Said as the log and errors say it: 'died (SIGSEGV): Fatal Python error...'."""

    hung: bool
    how: str = ""
    said: str = ""
    timeout_s: float | None = None

    def __str__(self) -> str:
        if self.hung:
            return f"hung (no answer in {self.timeout_s:g} s)" if self.timeout_s is not None else "stopped answering"
        return f"died ({self.how})" + (f": {self.said}" if self.said else "")

    def figures(self) -> dict[str, Any]:
        """The case row's figures of it (the note's, workloads/opscan/notes.py)."""
        if self.hung:
            return {"timeout_s": self.timeout_s}
        return {"worker_how": self.how, "worker_said": self.said or None}


@dataclass
class Progress:
    """What the supervisor learned: the worker's hello, and the restarts it made."""

    hello: dict[str, Any] = field(default_factory=dict)
    restarts_s: list[float] = field(default_factory=list)
    crashes: int = 0
    hangs: int = 0


def _signal_name(code: int) -> str:
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


class Supervisor:
    def __init__(self, state: ScanState, op_timeout: float, on_hello: Callable[[dict[str, Any]], None],
                 on_row: Callable[[dict[str, Any]], None]):
        self.state, self.op_timeout = state, op_timeout
        self.on_hello, self.on_row = on_hello, on_row
        self.progress = Progress()
        self.worker: subprocess.Popen[bytes] | None = None

    def run(self) -> Progress:
        first = self.state.next_case()
        lost_since: float | None = None
        try:
            while True:
                outcome, current, fatal = self._one_worker(first, lost_since, restarted=lost_since is not None)
                lost_since = None
                if not isinstance(outcome, Lost):   # "done"
                    return self.progress
                if fatal is not None:
                    raise WorkloadError(fatal["fatal"], hint=fatal.get("hint"), bad_input=bool(fatal.get("bad_input")))
                if current is None:
                    raise WorkloadError(f"the scan's worker {outcome} before it began a case",
                                        hint="see run.log for its last lines", bad_input=False)
                self._give_up(current, outcome)
                first = current["case"] + 1
                lost_since = time.perf_counter()
        finally:
            self._kill()

    def _give_up(self, current: dict[str, Any], outcome: Lost) -> None:
        status = "hang" if outcome.hung else "crash"
        if outcome.hung:
            self.progress.hangs += 1
        else:
            self.progress.crashes += 1
        row = {**current, "status": status, "message": f"the worker {outcome}", **outcome.figures()}
        log(f"opscan: {current['op']} in {current['dtype']}: {status} (the worker {outcome}); "
            "continuing in a new worker")
        self.state.append(row)
        self.on_row(row)

    def _one_worker(self, first: int, lost_since: float | None,
                    restarted: bool) -> tuple[Lost | str, dict[str, Any] | None, dict | None]:
        """Run one worker from case ``first``; (how it ended, the case it was in, its fatal message)."""
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "workloads.opscan.worker", str(self.state.path), str(first)]
            + (["restarted"] if restarted else []),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        tail: deque[str] = deque(maxlen=20)
        threading.Thread(target=_forward, args=(self.worker.stderr, tail), daemon=True).start()
        selector = selectors.DefaultSelector()
        assert self.worker.stdout is not None
        selector.register(self.worker.stdout, selectors.EVENT_READ)
        buffer = b""
        current: dict[str, Any] | None = None
        fatal: dict[str, Any] | None = None
        deadline = time.monotonic() + RECORD_TIMEOUT_S
        while True:
            wait = deadline - time.monotonic()
            if wait <= 0 or not selector.select(timeout=wait):
                self._kill()
                return Lost(True, timeout_s=self.op_timeout if current else None), current, None
            chunk = os.read(self.worker.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "begin" in message:
                    current = message["begin"]
                    if lost_since is not None:
                        self.progress.restarts_s.append(time.perf_counter() - lost_since)
                        lost_since = None
                elif "row" in message:
                    row = message["row"]
                    self.state.append(row)
                    self.on_row(row)
                    current = None
                elif "recorded" in message:
                    self.progress.hello = message
                    self.on_hello(message)
                elif "fatal" in message:
                    fatal = message
                elif "done" in message:
                    self.worker.wait()
                    return "done", None, None
                deadline = time.monotonic() + self.op_timeout
        code = self.worker.wait()
        last = _telling_line(tail)
        return Lost(False, _signal_name(code), last[:200] if code != 0 else ""), current, fatal

    def _kill(self) -> None:
        worker = self.worker
        if worker is not None and worker.poll() is None:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait()


def _telling_line(tail: deque[str]) -> str:
    """The line of a dead worker's stderr that says what happened: Python's fatal-error line (an abort, a
    segfault), else the last line that is not part of a traceback or the list of loaded modules."""
    lines = [line.strip() for line in tail if line.strip()]
    fatal = next((line for line in lines if line.startswith("Fatal Python error")), None)
    if fatal:
        return fatal
    noise = ("File ", "Extension modules", "Current thread", "Thread 0x", "Traceback")
    return next((line for line in reversed(lines) if not line.startswith(noise)), "")


def _forward(stream: Any, tail: deque[str]) -> None:
    """The worker's stderr into ours (run.log), its last lines kept to explain a crash."""
    for raw in stream:
        line = raw.decode("utf-8", errors="replace").rstrip("\n")
        tail.append(line)
        log(line)
