"""`cardbench run WORKLOAD ...`: one workload in a child, its progress on the terminal.

Progress lines go to stdout, or to stderr with ``--json``, where stdout holds
only the final result as one JSON object. The run is recorded in the run store
like any other. Ctrl+C, SIGTERM and SIGHUP (a closed SSH session) stop the child
cleanly, and the run directory keeps what it reported.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys

from tui.cli import CliError
from tui.runs import RunStore, RunStoreError
from workloads.runner import Outcome, Runner


def _start_telemetry(run):
    """Sample devices into the run while it is active, when the telemetry package is present."""
    try:
        from tui.telemetry import Sampler
    except ImportError:
        return None
    sampler = Sampler(interval=1.0)
    sampler.set_sink(run.append_telemetry)
    sampler.start()
    return sampler


def _say(line: str, stream) -> None:
    """A progress line; a terminal gone with a closed SSH session must not end the run's record."""
    try:
        print(line, file=stream, flush=True)
    except (OSError, ValueError):
        pass


async def run_workload(name: str, args: list[str], *, runs_dir: str | None, as_json: bool) -> int:
    try:
        run = RunStore(runs_dir).create(name, args)
    except RunStoreError as exc:
        raise CliError(f"cardbench run: {exc}") from None
    progress = sys.stderr if as_json else sys.stdout
    _say(f"cardbench: run {run.id} -> {run.path}", progress)
    runner = Runner.for_workload(name, args, run=run)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(runner.stop()))
    sampler = _start_telemetry(run)
    outcome = Outcome()
    try:
        async for event in runner.events():
            outcome.see(event)
            _say(event.describe(), progress)
    finally:
        if sampler is not None:
            sampler.stop()
        run.close()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
    status = outcome.status
    if as_json and outcome.result is not None:
        _say(json.dumps({"workload": name, "run": str(run.path), "status": status, **outcome.result.metrics}),
             sys.stdout)
    if status == "ok":
        return 0
    if outcome.error is not None:
        _say(f"cardbench: error: {outcome.error_line}", sys.stderr)
    if status == "stopped":
        return 130
    # a workload's bad-input exit (2) stays 2, so scripts can tell it from a crash
    return 2 if outcome.end is not None and outcome.end.exit_code == 2 else 1
