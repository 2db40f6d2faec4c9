"""`cardbench ready`'s sub-runs, one step at a time through the headless suite's runner (`tui.headless.suite`), each
a run in the run store with telemetry beside it, within the budget.

Each step gets its part of the time left (its weight over the weights of the steps still to run, at least its floor)
as the deadline the suite's runner stops it at (`tui.headless.deadline`, which lets a run finish the steps a figure
needs), and never past the budget's end. A step whose floor no longer fits in what is left is skipped, and its row
says so. What each step gave is read back from its run directory (`tui.store.load_run`): what is on disk is what
the table says.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from tui.headless.plan import Job
from tui.headless.progress import Progress
from tui.headless.suite import SuiteState, run_suite
from tui.i18n.voice import quoted
from tui.ready.rows import fits, words
from tui.ready.steps import Step
from tui.session import RunSession
from tui.store import RunStoreError, load_run
from workloads import protocol, registry
from workloads.facts.formatting import format_duration

SOURCE = "cardbench ready"


@dataclass
class Gave:
    """What the steps gave, by the question each answers (`Step.answers`): its step's result, or why there is none;
    and the runs' directories."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    why: dict[str, dict[str, str]] = field(default_factory=dict)
    run_dirs: list[Path] = field(default_factory=list)
    device: str = ""

    def skip(self, step: Step, why: dict[str, str]) -> None:
        for question in step.answers:
            self.why[question] = why

    def gave(self, step: Step, result: dict[str, Any]) -> None:
        for question in step.answers:
            self.results[question] = result


@dataclass(frozen=True)
class Budget:
    """The budget's end (monotonic) and its length, for the words of a skipped step."""

    end: float
    seconds: float

    def deadline(self, step: Step, weights_left: float, now: float) -> tuple[float, float] | None:
        """(deadline, last call) for ``step`` starting ``now``; None when its floor does not fit what is left."""
        left = self.end - now
        if left < step.floor_s:
            return None
        share = max(step.floor_s, left * step.weight / max(weights_left, step.weight))
        return min(self.end, now + share), min(self.end, now + share + step.floor_s)


def run_steps(steps: Sequence[Step], session: RunSession, progress: Progress, budget: Budget,
              checks: list[dict[str, Any]], unsupported: Mapping[str, dict[str, str]]) -> tuple[Gave, SuiteState]:
    """Each step in turn; ``unsupported``: steps this cardbench cannot run (no such option), with the reason."""
    gave = Gave()
    state = SuiteState(source=SOURCE)
    for at, step in enumerate(steps):
        if step.name in unsupported:
            gave.skip(step, dict(unsupported[step.name]))
            continue
        if state.interrupted:
            gave.skip(step, words("why.interrupted"))
            continue
        if "fit" in gave.results and does_not_fit(gave.results["fit"]) and step.name != "ops":
            gave.skip(step, words("why.no_fit"))   # each run of the model would refuse it: the budget goes elsewhere
            continue
        times = budget.deadline(step, sum(s.weight for s in steps[at:] if s.name not in unsupported),
                                time.monotonic())
        if times is None:
            gave.skip(step, words("why.budget", left=format_duration(max(0.0, budget.end - time.monotonic())),
                                  budget=format_duration(budget.seconds), need=format_duration(step.floor_s)))
            progress.say(f"  {step.name}: skipped, the budget has less than {format_duration(step.floor_s)} left")
            continue
        try:
            _run_one(step, times, session, state, progress, checks, gave)
        except KeyboardInterrupt:
            # Ctrl+C between two runs (within one, the suite's runner stops it): what was measured is still said
            state.interrupted = True
            progress.say("stopping: interrupted; the rest is skipped, the table and the bundle still written")
            if not any(q in gave.results for q in step.answers):
                gave.skip(step, words("why.interrupted"))
    return gave, state


def does_not_fit(fit: Mapping[str, Any]) -> bool:
    """The fit's inference row says this device cannot hold the model (the rows' own reading of a plan's verdict)."""
    inference = next((r for r in fit.get("fit") or [] if isinstance(r, dict) and r.get("use") == "inference"), {})
    return fits(inference) is False


def _run_one(step: Step, times: tuple[float, float], session: RunSession, state: SuiteState, progress: Progress,
             checks: list[dict[str, Any]], gave: Gave) -> None:
    """One step as a one-job suite (the suite's runner, deadline and progress); its result read from its run."""
    args = list(step.args)
    job = Job(step.workload, args, registry.spec_for(step.workload).steps_planned(args), *times)
    before = len(state.run_dirs)
    progress.say(f"step {step.name}: {', '.join(step.answers)}")   # the suite's runner begins the phase
    asyncio.run(run_suite([job], session, state, progress, checks, "ready"))
    if len(state.run_dirs) == before:
        why = state.not_started[-1][1] if state.not_started else "?"
        gave.skip(step, words("why.not_created", why=quoted(why)))
        return
    run_dir = state.run_dirs[-1]
    gave.run_dirs.append(run_dir)
    try:
        record = load_run(run_dir)
    except RunStoreError as exc:
        gave.skip(step, words("why.not_created", why=quoted(str(exc))))
        return
    if record.start is not None and not gave.device:
        gave.device = record.start.device
    if record.result is not None:
        gave.gave(step, dict(record.result.metrics))
        return
    gave.skip(step, _why_no_result(record, step, state))


def _why_no_result(record: Any, step: Step, state: SuiteState) -> dict[str, str]:
    if record.status == "stopped" and step.workload in state.out_of_time:
        return words("why.stopped")
    if record.status == "stopped" and state.interrupted:
        return words("why.interrupted_mid")   # the user's stop (Ctrl+C, the workbench's s), not a failure
    errors = record.of(protocol.Error)
    why = f": {errors[-1].message}" if errors else ""
    return words("why.failed", status=quoted(record.status), why=quoted(why) if why else "")
