"""One run at a time, UI-free: the workbench, `cardbench run` and the headless suite all run workloads here.

    session = RunSession(RunStore(runs_dir))
    session.attach_sampler(sampler)             # samples reach the open run through this, and only this
    run = session.start("resnet50", args)       # the run directory exists; the child starts with the stream
    async with aclosing(session.events()) as events:
        async for event in events: ...          # each event is on disk before it is yielded
    session.request_stop()  /  await session.stop()   # from anywhere, any number of times

A `RunSession` owns the run store, the runner, the open run and the telemetry
sink, and stops a child one way: SIGTERM to its process group, SIGKILL after
``grace_s``. A second stop joins the first. Whatever ends the stream (the child's
end, a stop, the caller's cancel), no child outlives it and the run is closed.

It also holds the CPU trap (`tui.cpu_trap.CpuTrap`, ``session.cpu_trap``): when a
run that was not asked to use the CPU starts on it while telemetry (or the doctor,
``session.cpu_trap.see_checks``) lists accelerators, the session records a
``warning`` event (code ``cpu_while_accelerators_listed``) in the run and yields it
with the others, right after the start (or as soon as a sample lists the cards).

It also watches whether the run had its host and card to itself (`tui.telemetry.sharing`): a run whose samples
show other processes' CPU above the threshold, or another process on its card, gets a ``warning`` event (code
``shared_host_or_card``, its figures in the event) right before its ``end``: the log, the report and compare say it;
a run that timed nothing (a plan, ``--fit-only``) gets none.

When the run directory stops taking writes mid-run (`tui.store.StoreFault`: disk
full, read-only, unwritable), the run goes on and its events keep coming; the
session yields one ``warning`` (code :data:`STORE_FAULT`) naming the directory and
the cause, before the event whose write failed. It is not in the run (it could
not be written); the run's ``fault`` keeps it after the stream has ended.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterable

from tui.cpu_trap import CpuTrap
from tui.store import Run, RunStore
from tui.telemetry.sharing import SharingWatch
from workloads import protocol
from workloads.rundir import TELEMETRY
from workloads.runner import DEFAULT_GRACE_S, Runner, write_event

STOP_GRACE_S = DEFAULT_GRACE_S   # the one grace period: SIGTERM, then SIGKILL this much later
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl+C, kill, a closed SSH session
TELEMETRY_FILE = TELEMETRY
STREAM_END_S = 10.0   # how long stop() waits for the stopped run's last events to be written
STORE_FAULT = "run_dir_unwritable"  # the code of the warning yielded when the run directory stops taking writes

RunnerFactory = Callable[[str, list, Any], Runner]   # (workload, args, event sink) -> Runner
LogListener = Callable[[str, str], None]             # (run id, a line the child wrote on stderr)


def _nothing() -> None:
    """A no-op for the writer thread: waiting for it waits for every write queued before it."""


def default_runner_factory(name: str, args: list, sink: Any) -> Runner:
    return Runner.for_workload(name, args, run=sink)


class _Tap:
    """The runner's event sink: the run directory, and whoever listens to the child's stderr."""

    def __init__(self, run: Run, on_log: LogListener | None):
        self.run = run
        self.on_log = on_log

    def append(self, event: protocol.Event) -> None:
        self.run.append(event)

    def log(self, line: str) -> None:
        self.run.log(line)
        if self.on_log is not None:
            self.on_log(self.run.id, line)


class RunSession:
    """Runs workloads one after another in children, recording each in the run store."""

    def __init__(self, store: RunStore, *, runner_factory: RunnerFactory | None = None,
                 grace_s: float = STOP_GRACE_S, on_log: LogListener | None = None):
        self.store = store
        self.runner_factory = runner_factory or default_runner_factory
        self.grace_s = grace_s
        self.on_log = on_log
        self.runs: list[Path] = []           # every run started here, oldest first
        self.run: Run | None = None          # the open run
        self.runner: Runner | None = None    # its child
        self._stop: asyncio.Future | None = None
        self._lock = threading.Lock()        # the sampler's thread writes to the open run
        self._sampled = False
        self.cpu_trap = CpuTrap()            # work on the CPU while accelerators are listed: said, and recorded
        # the open run's events and log lines are written on this thread (each event awaited before it is
        # yielded, log lines queued in order): the workbench's event loop does not wait on those writes (the
        # run's creation, the sampler's lock aside)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cardbench-run-writer")
        self._stream_done: asyncio.Event | None = None   # set once the open run's stream has ended and it is closed
        self._own: tuple[str, int | None, int | None] | None = None   # the open run's (workload, card, bytes held)
        self.sharing = SharingWatch()        # whether the open run has its host and card to itself

    @property
    def running(self) -> bool:
        """A run is open (from `start` until its stream has ended)."""
        return self.runner is not None

    @property
    def stopping(self) -> bool:
        return self._stop is not None

    # telemetry ------------------------------------------------------------------------------
    def attach_sampler(self, sampler: Any) -> Any:
        """From now on the sampler's samples go to the open run (its sink), and name the open run's child among
        each card's processes; returns the sampler."""
        sampler.set_sink(self.record_telemetry)
        sampler.own_workloads = self.own_workloads
        self._sampled = True
        return sampler

    def own_workloads(self) -> tuple[Any, ...]:
        """The open run's child as `tui.telemetry.processes.OwnWorkload` (its pid, card, what it holds); any thread."""
        from tui.telemetry.processes import OwnWorkload

        runner, seen = self.runner, self._own
        pid = getattr(runner, "pid", None) if runner is not None else None
        if not isinstance(pid, int) or seen is None:
            return ()
        workload, index, held = seen
        return (OwnWorkload(pid, workload, index, held),)

    def _see_own(self, event: protocol.Event) -> None:
        """Where the child runs (its start event) and what it holds (its steps' reserved, else allocated, bytes)."""
        if isinstance(event, protocol.Start):
            from tui.telemetry.processes import card_index

            env = getattr(self.runner, "env", None) or os.environ
            self._own = (event.workload, card_index(event.device, env), None)
        elif isinstance(event, protocol.Step) and self._own is not None:
            held = event.memory_reserved_bytes or event.memory_allocated_bytes
            if held:
                self._own = (self._own[0], self._own[1], held)

    def record_telemetry(self, sample: dict[str, Any]) -> None:
        """Append one sample to the open run's telemetry.jsonl; with no run open it is dropped. Any thread.

        The CPU trap sees every sample (what is listed), run or not.
        """
        self.cpu_trap.see_sample(sample)
        with self._lock:
            if self.run is not None:
                self.run.append_telemetry(sample)
                own = self._own
                self.sharing.see(sample, own[1] if own is not None else None)

    # a run's life -----------------------------------------------------------------------------
    def start(self, workload: str, args: Iterable[str], **config: Any) -> Run:
        """Create the run and its runner; the child is spawned when `events` is first iterated.

        Raises `tui.store.RunStoreError` (nothing started) when the run cannot be created.
        """
        if self.runner is not None:
            raise RuntimeError(f"a run is already open: {self.run.id if self.run else '?'}")
        args = list(args)
        run = self.store.create(workload, args, **config)
        if self._sampled:
            try:
                (run.path / TELEMETRY_FILE).touch()  # the run was sampled, even if it ends before the first tick
            except OSError:
                pass
        runner = self.runner_factory(workload, args, _Tap(run, self.on_log))
        runner.grace_s = self.grace_s  # a stop that comes while the child is spawning uses it too
        runner.writer = self._writer   # the run's files are written off the caller's event loop
        # where a workload may write files of its own (the scan's ops.csv) beside the events
        env = getattr(runner, "env", None)
        runner.env = {**(env if env is not None else os.environ), protocol.RUN_DIR_ENV: str(run.path)}
        self.cpu_trap.start_run(workload, args)
        with self._lock:
            self.run = run
            self.sharing.start(workload)
        self.runner = runner
        self._stop = None
        self.runs.append(run.path)
        return run

    async def events(self) -> AsyncIterator[protocol.Event]:
        """The open run's events, ending with its one ``end``; then the run is closed."""
        runner, run = self.runner, self.run
        if runner is None or run is None:
            return
        done = self._stream_done = asyncio.Event()
        stream = runner.events()
        said_fault = False
        try:
            async for event in stream:
                self._see_own(event)
                with self._lock:
                    self.sharing.see_event(event)
                if run.fault is not None and not said_fault:
                    said_fault = True
                    yield protocol.WorkloadWarning(message=run.fault.line(), code=STORE_FAULT)
                warning = self.cpu_trap.see_event(event)
                if warning is not None and not isinstance(event, protocol.Start):
                    yield await self._record(run, warning)   # a late one still comes before the end
                if isinstance(event, protocol.End):
                    with self._lock:
                        shared = self.sharing.verdict()
                    if shared is not None:
                        yield await self._record(run, shared.warning())
                yield event
                if warning is not None and isinstance(event, protocol.Start):
                    yield await self._record(run, warning)
        finally:
            await stream.aclose()
            if runner.running:  # the caller stopped listening (cancelled): the child goes too
                await self._stop_child()
            with self._lock:   # the sampler's thread appends under it: no sample after the close
                if self.run is run:
                    self.run = None
            try:
                # shielded: a cancelled wait must not cancel the close itself
                await asyncio.shield(asyncio.get_running_loop().run_in_executor(self._writer, run.close))
            finally:
                if self.runner is runner:
                    self.runner = None
                    self._stop = None
                    self._own = None
                done.set()

    async def _record(self, run: Run, event: protocol.Event) -> protocol.Event:
        """An event the session adds to the run (the CPU trap's warning): on disk before it is yielded (shielded: a
        cancelled wait still writes it)."""
        await write_event(self._writer, run, event)
        return event

    # the one stop policy ---------------------------------------------------------------------
    def request_stop(self) -> None:
        """Start stopping the open run's child (SIGTERM, SIGKILL after ``grace_s``); for callbacks that cannot await."""
        if self.runner is not None and self._stop is None:
            self._stop = asyncio.ensure_future(self.runner.stop(self.grace_s))

    async def stop(self) -> None:
        """Stop the open run's child and wait until it is gone and its run is on disk to its end (the stream's
        last events written and the run closed, within STREAM_END_S); a second call waits for the first."""
        await self._stop_child()
        done = self._stream_done
        if done is not None and not done.is_set():
            try:
                await asyncio.wait_for(done.wait(), STREAM_END_S)   # the stream's reader writes its last events
            except asyncio.TimeoutError:
                pass   # nobody reads the stream: what was read is on disk
        # whatever is still queued (log lines) is written before this returns
        await asyncio.shield(asyncio.get_running_loop().run_in_executor(self._writer, _nothing))

    async def _stop_child(self) -> None:
        self.request_stop()
        if self._stop is not None:
            await asyncio.shield(self._stop)

    def stop_on_signals(self, signals: Iterable[int] = SIGNALS,
                        then: Callable[[int], Any] | None = None) -> Callable[[], None]:
        """On these signals, stop the open run and call ``then(signal)``; returns what removes the handlers.

        Signals that cannot be handled here (not the main thread) are skipped: the
        runner's exit hook is the last resort then.
        """
        loop = asyncio.get_running_loop()
        handled: list[int] = []

        def on_signal(sig: int) -> None:
            self.request_stop()
            if then is not None:
                then(sig)

        previous: dict[int, Any] = {}
        for sig in signals:
            try:
                before = signal.getsignal(sig)
                loop.add_signal_handler(sig, on_signal, sig)
                previous[sig] = before
                handled.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass

        def remove() -> None:
            # asyncio's remove_signal_handler leaves SIG_DFL behind: put back what the caller had (the headless
            # bundle phase's policy, pytest's handlers...), so an off-screen workbench changes nothing around it
            while handled:
                sig = handled.pop()
                try:
                    loop.remove_signal_handler(sig)
                    if previous.get(sig) is not None:
                        signal.signal(sig, previous[sig])
                except (NotImplementedError, RuntimeError, ValueError):
                    pass

        return remove
