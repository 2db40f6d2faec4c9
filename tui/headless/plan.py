"""What the headless suite runs: the workloads, their arguments and the CPU-only time budget (from the specs)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Sequence

from tui.report.bundle import BundleError
from tui.report.i18n import note, quoted
from workloads import registry
from workloads.catalogue import Message
from workloads.spec import Text

ARGS_ENV = "CARDBENCH_HEADLESS_ARGS"
# on a CPU-only machine the workloads together get this long, so the whole export ends within five minutes
# even on a loaded host; a run still going at its share of it is stopped and reported with what it measured, unless
# it has not yet measured the steps a figure needs (tui.headless.deadline): then it may take one more share, so on
# a host too slow for the suite the export takes up to twice this
CPU_BUDGET_ENV = "CARDBENCH_CPU_BUDGET_S"
CPU_BUDGET_S = 210.0


@dataclass
class Job:
    workload: str
    args: list[str]
    total: float | None   # step numbers the run will count to (steps, or tokens: the spec says), for the bar
    deadline: float | None = None  # monotonic time by which a CPU-only run is stopped (the five-minute promise)
    last_call: float | None = None  # the latest it is stopped when it has not measured its minimum by its deadline


def suite_names(workloads: Sequence[str] | None, suite: str = "quick") -> list[str]:
    """The workloads the suite runs, in registry order: those named, else those whose spec puts them in ``suite``.
    A workload that hands something over to the jobs after it (the spec's ``hand_over``) runs first."""
    if workloads:
        names = [s.name for s in registry.specs() if s.name in workloads] + [w for w in workloads if w not in registry]
    else:
        names = [s.name for s in registry.specs() if s.suite is not None and suite in s.suite.suites]
    return sorted(names, key=lambda name: registry.spec_for(name).hand_over is None)


def suite_jobs(suite: str, workloads: Sequence[str] | None, *, accelerator: bool, device: str | None,
               amp: str = "off", overrides: dict[str, list[str]] | None = None) -> tuple[list[Job], list[Message]]:
    """The workloads to run and their arguments, with one note per choice the report must state."""
    notes: list[Message] = []
    device_args = ["--device", device] if device else []
    jobs: list[Job] = []
    for name in suite_names(workloads, suite):
        spec = registry.spec_for(name)
        if overrides and name in overrides:
            args = [str(a) for a in overrides[name]]
            notes.append(note("note_args_env", name=Text(name, spec.title("zh")), env=ARGS_ENV,
                              args=quoted(" ".join(args))))
        elif spec.suite is not None:
            args, scaled = spec.suite.args(suite, accelerator=accelerator, amp=amp)
            args += device_args
            if scaled:
                notes.append(note("note_workload", name=Text(name, spec.title("zh")), note=scaled))
        else:
            args = list(device_args)
        jobs.append(Job(name, args, spec.steps_planned(args)))
    return jobs, notes


def env_overrides() -> dict[str, list[str]] | None:
    """``$CARDBENCH_HEADLESS_ARGS``: workload name -> the arguments that replace the suite's (the tests shrink it)."""
    text = os.environ.get(ARGS_ENV)
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"${ARGS_ENV} is not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise BundleError(f"${ARGS_ENV} must be a JSON object of workload name -> list of arguments")
    return {str(k): [str(a) for a in v] for k, v in data.items()}


def cpu_budget() -> float | None:
    """Seconds the workloads share on a CPU-only machine (``$CARDBENCH_CPU_BUDGET_S``); None: no budget."""
    text = os.environ.get(CPU_BUDGET_ENV)
    if text is None:
        return CPU_BUDGET_S
    try:
        value = float(text)
    except ValueError:
        return CPU_BUDGET_S
    return value if value > 0 else None  # 0 turns the budget off


@dataclass(frozen=True)
class Budget:
    """The CPU-only time budget the suite's runs share (monotonic seconds)."""

    end: float
    share: float   # the budget over the runs: what each gets at least

    def give(self, job: Job, now: float, jobs_left: int) -> None:
        """The job's deadline as it starts: its part of what is left, and at least its share (a run before it that
        ended early leaves it more; one that went on to measure its minimum never leaves it less); its last call
        one share later, for a run short of its minimum at its deadline."""
        job.deadline = now + max(self.share, (self.end - now) / max(1, jobs_left))
        job.last_call = job.deadline + self.share


def budget_for(jobs: Sequence[Job], started: float, seconds: float | None) -> Budget | None:
    """The budget of ``seconds`` from ``started`` (monotonic) over ``jobs``; None: no budget (an accelerator)."""
    if seconds is None or not jobs:
        return None
    return Budget(started + seconds, seconds / len(jobs))
