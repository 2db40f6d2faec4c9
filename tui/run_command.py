"""`cardbench run WORKLOAD ...`: one workload in a child, its progress on the terminal.

Progress lines go to stdout, or to stderr with ``--json``, where stdout holds
only the final result as one JSON object; an error is one line on stderr, once.
The workload's arguments were checked before (``tui.cli``), so a mistyped
option records no run. The run is recorded in the run store
like any other, with telemetry sampled while it is active. Ctrl+C, SIGTERM and
SIGHUP (a closed SSH session) stop the child cleanly, and the run directory
keeps what it reported.
"""

from __future__ import annotations

import json
import sys
from contextlib import aclosing

from tui.cpu_trap import check_before_run
from tui.runs import RunStore, RunStoreError
from tui.session import RunSession
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


async def run_workload(name: str, args: list[str], *, runs_dir: str | None, as_json: bool) -> int:
    session = RunSession(RunStore(runs_dir))
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
    try:
        async with aclosing(session.events()) as events:
            async for event in events:
                outcome.see(event)
                if isinstance(event, protocol.Error):
                    _say(f"cardbench: error: {outcome.error_line}", sys.stderr)  # once, where errors go
                else:
                    _say(event.describe(), progress)
    finally:
        sampler.stop()
        unwatch_signals()
    verdict = session.cpu_trap.verdict()
    if verdict:
        _say(f"cardbench: {verdict}", sys.stderr)
    status = outcome.status
    if as_json and outcome.result is not None:
        _say(json.dumps({"workload": name, "run": str(run.path), "status": status, **outcome.result.metrics}),
             sys.stdout)
    if status == "ok":
        return exit_codes.OK
    if status == "stopped":
        return exit_codes.for_signal(received[0]) if received else exit_codes.INTERRUPTED
    # a workload's bad-input exit stays BAD_INPUT, so scripts can tell it from a crash
    bad_input = outcome.end is not None and outcome.end.exit_code == exit_codes.BAD_INPUT
    return exit_codes.BAD_INPUT if bad_input else exit_codes.FAILED
