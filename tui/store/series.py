"""A run's per-step series, built once for the screen and the report alike (UI-free, no plotting library).

    points = step_points(record.steps, told=..., emits_warmup=spec.warmup_emits_steps)

The workbench's plots (`tui.workbench.history`, live step by step or from a record) and the report's charts
(`tui.report.charts`) draw what this module gives: the loss per step, and the throughput per step split into the
steps the median counts and, apart (greyed by both), the warm-up steps it leaves out, by the one rule
(`workloads.facts.warmup.split_warmup`: flagged steps, else the result's count, else the default share).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from workloads import protocol, registry
from workloads.facts.missing import finite_or_none
from workloads.facts.warmup import WARMUP_MAX, WARMUP_SHARE, split_warmup

# what both the screen's legend and the report's chart call the warm-up steps' line
WARMUP_LABEL = "warm-up, not in the median"
# past this many steps the default warm-up (a tenth, at most WARMUP_MAX) no longer grows: a live run's steps after
# these are warm-up only when flagged
SETTLED_STEPS = WARMUP_SHARE * WARMUP_MAX


@dataclass(frozen=True)
class StepPoints:
    """One run's step series as columns: loss over every step; throughput over the steps that have one, the
    median's steps in ``throughput`` and the warm-up's in ``warmup`` (None where a step is in the other)."""

    steps: list[Any]               # the step numbers, x of the loss
    loss: list[Any]
    rated: list[Any]               # the step numbers of the steps with a throughput, x of the two below
    throughput: list[Any]
    warmup: list[Any]
    skipped: int                   # how many steps are warm-up


def is_flagged_warmup(step: protocol.Step) -> bool:
    """The workload said this step is warm-up (``"warmup": true`` in its step event)."""
    return step.extra.get("warmup") is True


def step_points(steps: Sequence[protocol.Step], *, told: object = None, emits_warmup: bool = True) -> StepPoints:
    """The loss and the split throughput of ``steps``; ``told``: the result's warm-up count, ``emits_warmup``: the
    workload's spec's ``warmup_emits_steps`` (as `tui.report.summary.measured_steps` reads them)."""
    rated = [s for s in steps if finite_or_none(s.throughput) is not None]
    skip, kept = split_warmup(rated, is_flagged_warmup, told=told, emits_warmup=emits_warmup)
    counted = {id(s) for s in kept}
    return StepPoints(
        steps=[s.step for s in steps], loss=[s.loss for s in steps], rated=[s.step for s in rated],
        throughput=[s.throughput if id(s) in counted else None for s in rated],
        warmup=[None if id(s) in counted else s.throughput for s in rated], skipped=skip)


def record_step_points(record: Any) -> StepPoints:
    """A `tui.store.RunRecord`'s step series, by its result's warm-up count and its workload's spec."""
    result = record.result
    return step_points(record.steps, told=result.metrics.get("warmup_steps") if result else None,
                       emits_warmup=registry.spec_for(record.workload).warmup_emits_steps)
