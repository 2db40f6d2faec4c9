"""`cardbench run WORKLOAD ...`: one workload in a child, its progress on the terminal.

Progress lines go to stdout, or to stderr with ``--json``, where stdout holds
only the final result as one JSON object; an error is one line on stderr, once.
The workload's arguments were checked before (``tui.cli``), so a mistyped
option records no run. The run is recorded in the run store
like any other, with telemetry sampled while it is active. Ctrl+C, SIGTERM and
SIGHUP (a closed SSH session) stop the child cleanly, and the run directory
keeps what it reported.

Exit status: 0 ok; 2 a bad argument, or a runs dir that cannot be used at all
(not a directory, not writable: said before anything runs); 1 the workload
failed, or the run is not all on disk (the runs dir stopped taking writes
mid-run: the run went on, its progress kept coming here, one line said which
directory and why), or ``--json`` could not write the result to stdout (it is
in the run's events.jsonl); 130/143/129 the signal that stopped it.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import aclosing

from tui.cpu_trap import check_before_run
from tui.runs import RunStore, RunStoreError
from tui.session import STORE_FAULT, RunSession
from tui.telemetry.collect import Collector
from tui.telemetry.sampler import Sampler
from workloads import exit_codes, protocol
from workloads.runner import Outcome


def _say(line: str, stream) -> None:
    """A progress line; a terminal gone with a closed SSH session must not end the run's record."""
    try:
        print(line, file=stream, flush=True)
    except (OSError, ValueError):
        pass


def _say_result(line: str) -> str | None:
    """The --json result on stdout; why it could not be written (a full disk, a closed pipe), or None."""
    try:
        print(line, file=sys.stdout, flush=True)
        return None
    except (OSError, ValueError) as exc:
        try:
            # what is still buffered would fail again at exit, with a traceback and status 120
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return getattr(exc, "strerror", None) or str(exc)


async def run_workload(name: str, args: list[str], *, runs_dir: str | None, as_json: bool) -> int:
    store = RunStore(runs_dir)
    try:
        store.check()  # a runs dir that cannot be used is a bad argument, said before anything starts
    except RunStoreError as exc:
        _say(f"cardbench run: {exc}", sys.stderr)
        return exit_codes.BAD_INPUT
    session = RunSession(store)
    # one collector for the check and the run's sampler: one torch probe child, not one for each
    collector = Collector()
    warning = check_before_run(name, args, collector=collector, trap=session.cpu_trap)
    if warning:
        _say(f"cardbench: WARNING: {warning}", sys.stderr)
    sampler = session.attach_sampler(Sampler(interval=1.0, collector=collector))
    try:
        run = session.start(name, args)
    except RunStoreError as exc:
        sampler.stop()  # closes the collector and its torch probe
        _say(f"cardbench run: {exc}", sys.stderr)
        return exit_codes.FAILED
    progress = sys.stderr if as_json else sys.stdout
    _say(f"cardbench: run {run.id} -> {run.path}", progress)
    received: list[int] = []  # the signal that stopped the run decides the exit status (130, 143, 129)
    unwatch_signals = session.stop_on_signals(then=received.append)
    sampler.start()
    outcome = Outcome()
    told_fault = False
    try:
        async with aclosing(session.events()) as events:
            async for event in events:
                outcome.see(event)
                if isinstance(event, protocol.Error):
                    _say(f"cardbench: error: {outcome.error_line}", sys.stderr)  # once, where errors go
                elif isinstance(event, protocol.WorkloadWarning) and event.code == STORE_FAULT:
                    told_fault = True
                    _say(f"cardbench run: {event.message}; the run goes on", sys.stderr)
                else:
                    _say(event.describe(), progress)
    finally:
        sampler.stop()
        unwatch_signals()
    verdict = session.cpu_trap.verdict()
    if verdict:
        _say(f"cardbench: {verdict}", sys.stderr)
    status = outcome.status
    fault = run.fault
    if fault is not None and not told_fault:
        _say(f"cardbench run: {fault.line()}", sys.stderr)  # it came as the run closed, after the last event
    unwritten = None
    if as_json and outcome.result is not None:
        record = {"record": "incomplete", "record_error": fault.line()} if fault is not None else {}
        unwritten = _say_result(json.dumps({"workload": name, "run": str(run.path), "status": status, **record,
                                            **outcome.result.metrics}))
        if unwritten:
            where = "its record is incomplete" if fault is not None else f"it is in {run.path / 'events.jsonl'}"
            _say(f"cardbench run: the result could not be written to stdout ({unwritten}); {where}", sys.stderr)
    if status == "stopped":
        return exit_codes.for_signal(received[0]) if received else exit_codes.INTERRUPTED
    if fault is not None or unwritten:
        return exit_codes.FAILED
    if status == "ok":
        return exit_codes.OK
    # a workload's bad-input exit stays BAD_INPUT, so scripts can tell it from a crash
    bad_input = outcome.end is not None and outcome.end.exit_code == exit_codes.BAD_INPUT
    return exit_codes.BAD_INPUT if bad_input else exit_codes.FAILED
