"""`cardbench run WORKLOAD ...`: one workload in a child, its progress on the terminal.

Progress lines go to stdout, or to stderr with ``--json``, where stdout holds
only the final result as one JSON object; an error is one line on stderr, once.
The workload's arguments were checked before (``tui.cli``), so a mistyped
option records no run. The run is recorded in the run store
like any other, with telemetry sampled while it is active. Ctrl+C, SIGTERM and
SIGHUP (a closed SSH session) stop the child cleanly, and the run directory
keeps what it reported.

While it runs, the run directory holds ``live.json`` (`tui.store.live`): this
process's pid, touched every few seconds, so the workbench can list the run as in
progress, attach to it and stop it. ``--detach`` (:func:`detach_run`) starts the
same command in a session of its own (`tui.detach`); that one ignores SIGHUP,
which is the point of it, and stops on SIGTERM or Ctrl+C as any run does.

Exit status: 0 ok; 2 a bad argument, or a runs dir that cannot be used at all
(not a directory, not writable: said before anything runs); 1 the workload
failed, or the run is not all on disk (the runs dir stopped taking writes
mid-run: the run went on, its progress kept coming here, one line said which
directory and why), or ``--json`` could not write the result to stdout (it is
in the run's events.jsonl); 130/143/129 the signal that stopped it. A run the workload refused (exit 2)
before it measured anything leaves no run directory, unless it was detached.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, TextIO

from tui.cpu_trap import check_before_run
from tui.detach import DEFAULT_LOG, is_detached, start_detached
from tui.figures import event_line, terminal_result_text
from tui.store.live import LiveMarker, wait_for_live
from tui.store import Run, RunStore, RunStoreError
from tui.session import SIGNALS, STORE_FAULT, RunSession
from tui.telemetry.collect import Collector
from tui.telemetry.sampler import Sampler
from workloads import exit_codes, protocol, registry
from workloads.facts.text_table import text_lines
from workloads.rundir import EVENTS, LOG
from workloads.rundir.refused import remove_refused
from workloads.runner import Outcome
from workloads.safe_text import one_line, printable


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
    opened = _open_run(name, args, runs_dir)
    if isinstance(opened, int):
        return opened
    session, sampler, run = opened
    progress = sys.stderr if as_json else sys.stdout
    _say(f"cardbench: run {run.id} -> {run.path}", progress)
    followed = await _follow_run(name, session, sampler, run, progress)
    code = _finish_run(name, session, run, followed, as_json)
    if code == exit_codes.BAD_INPUT:
        _forget_refused(run, progress)
    return code


def _forget_refused(run: Run, progress: TextIO) -> None:
    """A run its workload refused (exit 2: a device not here, a batch above the free memory) before it measured
    anything leaves no directory, as a refused argument leaves none (`workloads.rundir.refused` says what counts as
    measured). A detached run keeps it: it was said to be under way there, and the workbench lists it."""
    if is_detached():
        return
    if remove_refused(run.path):
        _say(f"cardbench: nothing was measured: run {run.id} removed", progress)


def _open_run(name: str, args: list[str], runs_dir: str | None) -> tuple[RunSession, Sampler, Run] | int:
    """The run recorded and its sampler made (not started), or the exit code when it cannot be: a runs dir that
    cannot be used at all is a bad argument, said before anything starts; one that refuses the run a failure."""
    store = RunStore(runs_dir)
    try:
        store.check()
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
    return session, sampler, run


@dataclass
class _Followed:
    """What following a run's events leaves for its exit: its outcome, the signal that stopped it, whether a
    store fault was already said."""
    outcome: Outcome = field(default_factory=Outcome)
    received: list[int] = field(default_factory=list)  # the signal that stopped the run decides the exit status
    told_fault: bool = False


async def _follow_run(name: str, session: RunSession, sampler: Sampler, run: Run, progress: TextIO) -> _Followed:
    """The run's events to the terminal until it ends, with its signals watched, its sampler on and its live
    marker in the run directory; all three undone however it ends."""
    detached = is_detached()
    followed = _Followed()
    unwatch_signals = session.stop_on_signals(_DETACHED_SIGNALS if detached else SIGNALS,
                                              then=followed.received.append)
    if detached:
        # a hang-up is not for a detached run; handled (not ignored) so the workload child does not inherit it
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, run.log, "[cardbench] hang-up ignored: detached")
    # listed (and so stoppable from the workbench) only once a SIGTERM stops the run cleanly
    marker = LiveMarker(run.path, detached=detached, workload=name).start()
    sampler.start()
    outcome = followed.outcome
    try:
        async with aclosing(session.events()) as events:
            async for event in events:
                marker.set_child(session.runner.pid if session.runner is not None else None)
                outcome.see(event)
                if isinstance(event, protocol.Error):
                    _say(f"cardbench: error: {outcome.error_line}", sys.stderr)  # once, where errors go
                elif isinstance(event, protocol.WorkloadWarning) and event.code == STORE_FAULT:
                    followed.told_fault = True
                    _say(f"cardbench run: {event.message}; the run goes on", sys.stderr)
                elif not detached:  # a detached run's log is run.log: its own log would grow as long
                    result = isinstance(event, protocol.Result) and name
                    _say(terminal_result_text(name, event.metrics) if result else event_line(event, name), progress)
                    if isinstance(event, protocol.Result):   # the table the report will show, cell for cell
                        for line in table_lines(name, event.metrics):
                            _say(line, progress)
    finally:
        sampler.stop()
        unwatch_signals()
        marker.remove()
    return followed


def table_lines(name: str, metrics: Mapping[str, Any]) -> list[str]:
    """The workload's report tables (its record's REPORT_TABLE and MORE_TABLES) as aligned lines, then its
    TERMINAL_TEXT as written, printable; none when it has none (the RESULT line counted it: `cells <8 items, in
    events.jsonl>`, issue 36 item 10)."""
    spec = registry.spec_for(name)
    lines: list[str] = []
    for printer in spec.report_tables:
        heading, columns, rows = printer(metrics)
        # each cell made printable before the columns are measured (a cell may be a file name from outside, ESC ]0;)
        rows = [[one_line(c) if isinstance(c, str) else c for c in row] for row in rows]
        lines += [printable(line) for line in text_lines(heading, columns, rows)]
    text = spec.terminal_text
    return lines + ([printable(line) for line in text(metrics)] if text is not None else [])


def _finish_run(name: str, session: RunSession, run: Run, followed: _Followed, as_json: bool) -> int:
    """The CPU trap's verdict, a store fault not said yet and the --json result said; the exit status."""
    verdict = session.cpu_trap.verdict()
    if verdict:
        _say(f"cardbench: {verdict}", sys.stderr)
    outcome = followed.outcome
    fault = run.fault
    if fault is not None and not followed.told_fault:
        _say(f"cardbench run: {fault.line()}", sys.stderr)  # it came as the run closed, after the last event
    unwritten = None
    if as_json and outcome.result is not None:
        unwritten = _json_result(name, run, outcome.status, outcome.result.metrics)
    if outcome.status == "stopped":
        return exit_codes.for_signal(followed.received[0]) if followed.received else exit_codes.INTERRUPTED
    if fault is not None or unwritten:
        return exit_codes.FAILED
    if outcome.status == "ok":
        return exit_codes.OK
    # a workload's bad-input exit stays BAD_INPUT, so scripts can tell it from a crash
    bad_input = outcome.end is not None and outcome.end.exit_code == exit_codes.BAD_INPUT
    return exit_codes.BAD_INPUT if bad_input else exit_codes.FAILED


def _json_result(name: str, run: Run, status: str, metrics: Mapping[str, Any]) -> str | None:
    """--json: the result as one JSON object on stdout; why it could not be written (said on stderr), or None."""
    fault = run.fault
    record = {"record": "incomplete", "record_error": fault.line()} if fault is not None else {}
    unwritten = _say_result(json.dumps({"workload": name, "run": str(run.path), "status": status, **record,
                                        **metrics}))
    if unwritten:
        where = "its record is incomplete" if fault is not None else f"it is in {run.path / EVENTS}"
        _say(f"cardbench run: the result could not be written to stdout ({unwritten}); {where}", sys.stderr)
    return unwritten


_DETACHED_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# the detached command creates its run directory within this; it checks nothing first (we did)
_RUN_APPEARS_S = 60.0


def detach_run(name: str, args: list[str], *, runs_dir: str | None) -> int:
    """`cardbench run NAME ARGS --detach`: start the run in a session of its own, say where it is and how to
    reach it, exit 0. Arguments are checked before (tui.cli), the runs dir here: both before anything starts."""
    store = RunStore(runs_dir)
    try:
        root = store.check()
    except RunStoreError as exc:
        _say(f"cardbench run: {exc}", sys.stderr)
        return exit_codes.BAD_INPUT
    log = root.absolute() / DEFAULT_LOG
    try:
        size_before = log.stat().st_size if log.exists() else 0
        pid = start_detached(["run", name, *args], runs_dir=root, log_path=log)
    except OSError as exc:
        _say(f"cardbench run: cannot start a detached run: {exc.strerror or exc}", sys.stderr)
        return exit_codes.FAILED
    live = wait_for_live(root, pid, _RUN_APPEARS_S)
    if live is None:
        said = _last_line(log, size_before)
        _say(f"cardbench run: the detached run (pid {pid}) ended before recording a run"
             f"{': ' + said if said else ''} (see {log})", sys.stderr)
        return exit_codes.FAILED
    _say(f"cardbench: run {live.id} detached (pid {pid}) -> {live.path}", sys.stdout)
    _say(f"  it goes on after this shell, the SSH session or tmux close; follow: tail -f {live.path / LOG}",
         sys.stdout)
    _say(f"  attach or stop it in the workbench (`cardbench`, key r); or stop it: kill -TERM -- -{pid}", sys.stdout)
    return exit_codes.OK



def _last_line(log: Path, offset: int) -> str:
    """The last line the detached process wrote to its log (after ``offset``), for a run that never started."""
    try:
        with open(log, "rb") as handle:
            handle.seek(offset)
            lines = handle.read().decode("utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].strip() if lines else ""
