"""Start a workload as a child process and stream its events.

    runner = Runner.for_workload("resnet50", ["--steps", "20"], run=run)
    async for event in runner.events():
        ...
    await runner.stop()          # from elsewhere: SIGTERM, then SIGKILL after a grace period

The child runs in its own session (so its own process group): stopping it, or
the workbench ending, takes its DataLoader workers and torchrun ranks with it.
Whatever happens to the child, the iterator ends with exactly one ``end`` event:
a crash (non-zero exit, death by signal, a device error on stderr) becomes an
``error`` event and ``end(failed)``, never an exception in the caller.

When a run (see ``tui.store``) is given, every event is appended to it before it
is yielded, and every stderr line goes to its run log, so a killed workbench
loses nothing already seen. The runner knows runs only by the small
:class:`EventSink` shape, so this module imports nothing from ``tui``.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import sys
import weakref
from collections import deque
from dataclasses import dataclass
from concurrent.futures import Executor
from typing import AsyncIterator, Protocol, Sequence

from workloads import protocol, registry
from workloads.hints import DEVICE_ERROR, hint_for
from workloads.safe_text import printable

DEFAULT_GRACE_S = 5.0
_STDERR_TAIL = 40  # lines kept to explain a crash

# every live child group, so an exiting interpreter can take them down
_LIVE: "weakref.WeakSet[Runner]" = weakref.WeakSet()


class EventSink(Protocol):
    def append(self, event: protocol.Event) -> None: ...
    def log(self, line: str) -> None: ...


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass
class Outcome:
    """What a consumer keeps of a run's events: the last result, error and end."""

    result: protocol.Result | None = None
    error: protocol.Error | None = None
    end: protocol.End | None = None

    def see(self, event: protocol.Event) -> None:
        if isinstance(event, protocol.Result):
            self.result = event
        elif isinstance(event, protocol.Error):
            self.error = event
        elif isinstance(event, protocol.End):
            self.end = event

    @property
    def status(self) -> str:
        return self.end.status if self.end else "failed"

    @property
    def error_line(self) -> str:
        """The error and its hint as one line, or '' when there was none."""
        if self.error is None:
            return ""
        hint = f" (hint: {self.error.hint})" if self.error.hint else ""
        return f"{self.error.message}{hint}"


async def write_event(writer: Executor | None, run: EventSink, event: protocol.Event) -> None:
    """``run.append(event)``: on ``writer``'s thread when there is one, waited for (shielded: a cancelled wait, the
    reader gone, still writes it), else here."""
    if writer is None:
        run.append(event)
    else:
        await asyncio.shield(asyncio.get_running_loop().run_in_executor(writer, run.append, event))


class Runner:
    """One workload child: spawn, stream events, stop."""

    def __init__(self, argv: Sequence[str], *, run: EventSink | None = None, env: dict[str, str] | None = None,
                 cwd: str | None = None, grace_s: float = DEFAULT_GRACE_S, writer: Executor | None = None):
        self.argv = list(argv)
        self.run = run
        # where the sink's writes run: a workbench's event loop must not wait on the disk (one thread keeps
        # their order); None writes in the caller's thread. Either way an event is written before it is yielded.
        self.writer = writer
        self.env = env
        self.cwd = cwd
        self.grace_s = grace_s
        self.process: asyncio.subprocess.Process | None = None
        self.stop_requested = False
        self.returncode: int | None = None
        self._stderr_tail: deque[str] = deque(maxlen=_STDERR_TAIL)
        self._device_errors: list[str] = []

    @classmethod
    def for_workload(cls, name: str, args: Sequence[str] = (), **kwargs) -> "Runner":
        """The registered workload ``name`` (its spec names the module to run) with ``args``."""
        return cls([sys.executable, "-u", "-m", registry.spec_for(name).run_module, *args], **kwargs)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def _record(self, event: protocol.Event) -> protocol.Event:
        if self.run is not None:
            await write_event(self.writer, self.run, event)
        return event

    def _log(self, line: str) -> None:
        if self.run is None:
            return
        if self.writer is None:
            self.run.log(line)
        else:
            # queued, not waited for: a job printing 50,000 lines is not slowed by a round trip per line; the
            # writer's one thread keeps them in order with the events, each of which is waited for
            self.writer.submit(self.run.log, line)

    async def _spawn(self) -> None:
        env = dict(os.environ if self.env is None else self.env)
        # the child's stdout is a pipe: without this Python would block-buffer its log lines
        env.setdefault("PYTHONUNBUFFERED", "1")
        env[protocol.PARENT_PID_ENV] = str(os.getpid())  # the child ties its life to ours (workloads/child/parent.py)
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=self.cwd,
            start_new_session=True,
            limit=2**20,  # a long event line (a big config) must not break the reader
        )
        _LIVE.add(self)

    async def _drain_stderr(self) -> None:
        assert self.process and self.process.stderr
        async for raw in self.process.stderr:
            # a job's own output comes this way (the command workload): no escape sequence of it reaches the
            # terminal, run.log or a report (OSC 52 writes the clipboard, OSC 0 retitles the window)
            line = printable(raw.decode("utf-8", errors="replace").rstrip("\n")).replace("\n", " ")
            self._stderr_tail.append(line)
            if DEVICE_ERROR.search(line):
                self._device_errors.append(line.strip())
            self._log(line)

    async def events(self) -> AsyncIterator[protocol.Event]:
        """Spawn the child (if not yet) and yield its events, ending with one ``end``."""
        try:
            await self._spawn()
        except OSError as exc:
            yield await self._record(protocol.Error(message=f"cannot start workload: {exc}",
                                              hint="check that this Python can run `python -m workloads.<name>`"))
            yield await self._record(protocol.End(status="failed"))
            return
        assert self.process and self.process.stdout
        if self.stop_requested:
            # stop() came while the child was being spawned, when there was nothing to signal yet
            asyncio.ensure_future(self.stop())
        stderr_task = asyncio.create_task(self._drain_stderr())
        saw_end: protocol.End | None = None
        saw_error = False
        try:
            async for raw in self.process.stdout:
                try:
                    event = protocol.parse_line(raw)
                except protocol.MalformedLine as exc:
                    text = raw.decode("utf-8", errors="replace").rstrip("\n")
                    if text.strip():
                        self._log(f"[cardbench] skipped malformed event line ({exc}): {text[:200]}")
                    continue
                if isinstance(event, protocol.End):
                    saw_end = event  # held back: the exit code decides what the last word is
                    continue
                saw_error = saw_error or isinstance(event, protocol.Error)
                yield await self._record(event)
            self.returncode = await self.process.wait()
            await stderr_task
        finally:
            if not stderr_task.done():
                stderr_task.cancel()
            await self._reap_group()
        for event in self._closing_events(saw_end, saw_error):
            yield await self._record(event)

    def _closing_events(self, saw_end: protocol.End | None, saw_error: bool) -> list[protocol.Event]:
        code = self.returncode
        if self.stop_requested:
            return [protocol.End(status="stopped", exit_code=code)]
        if code == 0:
            return [saw_end or protocol.End(status="ok", exit_code=0)]
        if saw_end is not None and saw_end.status != "ok" and saw_error:
            return [saw_end]  # the workload already explained itself
        out: list[protocol.Event] = []
        if not saw_error:
            if code is not None and code < 0:
                why = f"workload killed by {_signal_name(-code)}"
            else:
                why = f"workload exited with code {code}"
            detail = self._device_errors[-1] if self._device_errors else next(
                (line for line in reversed(self._stderr_tail) if line.strip()), "")
            message = f"{why}: {detail}" if detail else why
            hint = hint_for(detail) or ("the process was killed from outside (out of host memory? see `dmesg`)"
                                        if code is not None and code < 0 else "see run.log for the workload's output")
            out.append(protocol.Error(message=message, hint=hint))
        out.append(protocol.End(status="failed", exit_code=code))
        return out

    async def stop(self, grace_s: float | None = None) -> None:
        """SIGTERM the child's group, then SIGKILL it after the grace period."""
        self.stop_requested = True
        process = self.process
        if process is None or process.returncode is not None:
            return
        grace = self.grace_s if grace_s is None else grace_s
        self._signal_group(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout=grace)
        except asyncio.TimeoutError:
            self._log(f"[cardbench] workload ignored SIGTERM for {grace:.1f} s; sending SIGKILL")
            self._signal_group(signal.SIGKILL)
            await process.wait()

    def _signal_group(self, sig: int) -> None:
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    async def _reap_group(self) -> None:
        """The main child is gone; take down whatever it left in its group."""
        if self.process is None:
            return
        if self.process.returncode is None:
            self._signal_group(signal.SIGKILL)
            await self.process.wait()
        self._signal_group(signal.SIGKILL)
        _LIVE.discard(self)

    def kill_now(self) -> None:
        """Synchronous last resort (interpreter exit): SIGKILL the whole group."""
        self._signal_group(signal.SIGKILL)


@atexit.register
def _kill_live_children() -> None:
    for runner in list(_LIVE):
        runner.kill_now()
