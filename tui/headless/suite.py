"""The headless suite's runs: each job through the run session, its progress, its one result line.

Ctrl+C, SIGTERM or SIGHUP stop the running workload and skip the rest. On a
CPU-only machine a run still going at its share of the time budget is stopped
and counted as measured, not failed; one that has not yet measured the steps a
figure needs goes on until it has, up to one more share (`tui.headless.deadline`).

A runs dir that stops taking writes never stops the suite: a run whose directory
fails mid-run goes on (its progress still shown) and is listed in
``SuiteState.incomplete`` with the result seen live; a workload whose run cannot
even be created is said, listed in ``SuiteState.not_started`` and counted as
failed, and the suite goes on to the next.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import signal
import time
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path

from tui.figures import event_line, glance
from workloads.facts.formatting import fixed, live_rate
from tui.headless.output import DOCTOR_FILE
from tui.headless.deadline import Deadline
from tui.headless.plan import Job, budget_for, cpu_budget
from tui.headless.progress import Progress
from tui.headless.handover import Handovers
from tui.store import RunStoreError, StoreFault
from tui.session import SIGNALS, STORE_FAULT, RunSession
from workloads import protocol, registry
from workloads.catalogue import Message
from workloads.runner import Outcome


@dataclass(frozen=True)
class Incomplete:
    """A run whose directory stopped taking writes: the bundle holds it only up to ``fault.since``."""

    workload: str
    fault: StoreFault
    live: str   # its result line as the terminal showed it (not on disk)


@dataclass
class SuiteState:
    run_dirs: list[Path] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    out_of_time: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    incomplete: list[Incomplete] = field(default_factory=list)
    not_started: list[tuple[str, str]] = field(default_factory=list)  # (workload, why its run could not be created)
    interrupted: bool = False
    accelerator: bool = True
    notes: list[Message] = field(default_factory=list)  # the report's words on choices made while the suite ran
    source: str = "cardbench --export-report"   # the command each run's config.json says started it


def step_detail(event: protocol.Step, job: Job) -> tuple[float | None, str]:
    """The bar's fraction and text for a step."""
    total = job.total
    spec = registry.spec_for(job.workload)
    parts = [f"{spec.progress.en} {event.step}" + (f"/{int(total)}" if total else "")]
    if event.throughput is not None:
        parts.append(f"{live_rate(event.throughput, event.unit or '')} {event.rate_span()}")
    if event.loss is not None:
        parts.append(f"loss {fixed(event.loss, 4)}")  # four decimals, as the launcher shows it
    return (float(event.step) / total if total else None), ", ".join(parts)


def result_line(name: str, outcome: Outcome) -> str:
    """'generate: ok, 812.4 tokens/s, ...': the spec's headline and line metrics."""
    status = outcome.status
    if outcome.result is None:
        why = f": {outcome.error_line}" if outcome.error else ""
        return f"{name}: {status}{why}"
    bits = glance(name, outcome.result.metrics)
    return f"{name}: {status}" + (f", {', '.join(bits)}" if bits else "")


async def _run_job(job: Job, session: RunSession, state: SuiteState, progress: Progress,
                   doctor: list[dict[str, str]], suite: str) -> tuple[Path, Outcome] | None:
    """The run's directory and what it ended with; None when its run could not be created."""
    args = list(job.args)
    flag = getattr(registry.spec_for(job.workload).suite, "budget_flag", None)
    if job.deadline is not None and flag and flag not in args:
        # half the time left to it for the timed work; start-up, the model and the probes take the rest
        args += [flag, f"{max(1.0, (job.deadline - time.monotonic()) / 2):.0f}"]
    try:
        run = session.start(job.workload, args, source=state.source, suite=suite)
    except RunStoreError as exc:
        progress.say(f"  {job.workload}: not run: {exc}")
        state.not_started.append((job.workload, str(exc)))
        state.failed.append(job.workload)
        return None
    state.run_dirs.append(run.path)
    state.ran.append(job.workload)
    try:
        (run.path / DOCTOR_FILE).write_text(json.dumps(doctor, indent=2) + "\n", encoding="utf-8")
    except OSError:
        pass  # the report runs the doctor again when this is missing
    progress.say(f"  run {run.id}: cardbench run {job.workload} {' '.join(shlex.quote(a) for a in args)}")
    outcome = Outcome()
    timer = _deadline(job, session, state, progress)
    try:
        async with aclosing(session.events()) as events:
            async for event in events:
                outcome.see(event)
                if isinstance(event, protocol.Step):
                    progress.update(*step_detail(event, job))
                    if timer is not None:
                        timer.see(event)
                elif isinstance(event, protocol.WorkloadWarning) and event.code == STORE_FAULT:
                    progress.say(f"  {job.workload}: {event.message}; the run goes on")
                elif isinstance(event, (protocol.Fallback, protocol.WorkloadWarning)):
                    progress.say(f"  {event_line(event, job.workload)}")   # printable: text from outside
    finally:
        if timer is not None:
            timer.cancel()
    line = result_line(job.workload, outcome)
    progress.say("  " + line)
    if run.fault is not None:
        state.incomplete.append(Incomplete(job.workload, run.fault, line))
    stopped_for_time = job.workload in state.out_of_time and outcome.status == "stopped"
    if outcome.status != "ok" and not stopped_for_time:
        state.failed.append(job.workload)
    return run.path, outcome


def _deadline(job: Job, session: RunSession, state: SuiteState, progress: Progress) -> Deadline | None:
    """The CPU-only run's stop at its share of the budget (None: no budget), armed."""
    if job.deadline is None:
        return None
    runner = session.runner

    def out_of_time(short: bool) -> None:
        if runner is None or not runner.running or state.interrupted:
            return
        state.out_of_time.append(job.workload)
        if timer.waited:
            progress.say(f"  {job.workload}: went past its share of the CPU time budget to measure the steps a "
                         "figure needs" + ("; stopped still short of them" if short else "; stopped"))
        else:
            progress.say(f"  {job.workload}: stopped at its share of the CPU time budget; "
                         "the report keeps the steps it measured")
        session.request_stop()

    timer = Deadline(registry.spec_for(job.workload), job.deadline, job.last_call, out_of_time)
    timer.arm(asyncio.get_running_loop())
    return timer


async def run_suite(jobs: list[Job], session: RunSession, state: SuiteState, progress: Progress,
                    doctor: list[dict[str, str]], suite: str) -> None:
    """Each job in turn until one is interrupted; a signal stops the running one and skips the rest."""
    def interrupted(sig: signal.Signals) -> None:
        if not state.interrupted:
            state.interrupted = True
            progress.say("stopping: the running workload is stopped, the rest skipped; the bundle is still written")

    unwatch_signals = session.stop_on_signals(SIGNALS, then=interrupted)
    try:
        # jobs whose caller set their deadlines (`cardbench ready`, over its own budget) keep them
        own = any(job.deadline is not None for job in jobs)
        budget = None if own else budget_for(jobs, time.monotonic(), None if state.accelerator else cpu_budget())
        handovers = Handovers()
        for at, job in enumerate(jobs):
            if state.interrupted:
                break
            if budget is not None:
                budget.give(job, time.monotonic(), len(jobs) - at)
            progress.begin(f"{registry.spec_for(job.workload).title.en} ({job.workload})")
            for said in handovers.prepare(job.workload, job.args):
                state.notes.append(said)
                progress.say(f"  {said}")
            ended = await _run_job(job, session, state, progress, doctor, suite)
            handovers.finished(job.workload, ended)
            progress.end()
    finally:
        unwatch_signals()
