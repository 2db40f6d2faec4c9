"""The one rule for a figure "after warm-up" (torch-free: children and the UI share it).

Which steps are warm-up, in this order of trust:

1. the steps the workload flagged itself (``"warmup": true`` in the step event), wherever they fall: a soak
   forwards each inner run's warm-up, so they come again after every restart;
2. else the first ``warmup_steps`` that the workload's result reports it ran;
3. else none, when the workload warms up before its first step event (its spec's ``warmup_emits_steps``);
4. else the first tenth of the steps, at least one from three steps, at most ten (:func:`default_warmup`):
   a tool whose log is read from outside cannot say, and its first rates are its start-up.

The report's summary row, its run table, compare, a live or cut run's figure, the command workload's headline
and the workloads' own medians all leave out the same steps, so one run never has two "medians after warm-up".

A figure read from the steps needs :data:`MIN_MEASURED_STEPS` of them after the warm-up (:func:`measured_enough`):
the report withholds a headline with fewer, and the headless suite does not stop a CPU-only run at its deadline
before it has them.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

WARMUP_SHARE = 10   # one step in this many is warm-up, when nothing better says
WARMUP_MAX = 10
# the steps after warm-up a figure read from them needs: the median of three has a step on either side, so one slow
# step (a page fault, a neighbour's burst) cannot be the figure, and min..max says how far one step's rate wanders;
# below it the "median" is one step's rate or the mean of two (issue 36: a headline of 1.771 images/s from one step,
# where the same settings give 56). Three, not more: the CPU suite's shortest training run measures three
MIN_MEASURED_STEPS = 3


def default_warmup(n: int) -> int:
    """Of ``n`` steps whose warm-up nobody flagged or counted, how many first ones are left out."""
    return 0 if n < 3 else min(max(1, n // WARMUP_SHARE), WARMUP_MAX)


def measured_enough(n: int) -> bool:
    """Whether ``n`` steps after warm-up are enough for a figure read from them (:data:`MIN_MEASURED_STEPS`)."""
    return n >= MIN_MEASURED_STEPS


def split_warmup(steps: Sequence[T], flagged: Callable[[T], bool], *, told: object = None,
                 emits_warmup: bool = True) -> tuple[int, list[T]]:
    """(how many steps are warm-up, the steps after it) by the rule above; ``told`` is the result's count."""
    marked = [s for s in steps if flagged(s)]
    if marked:
        return len(marked), [s for s in steps if not flagged(s)]
    if isinstance(told, int) and not isinstance(told, bool) and 0 <= told < len(steps):
        return told, list(steps[told:])
    if not emits_warmup:
        return 0, list(steps)
    skip = default_warmup(len(steps))
    return skip, list(steps[skip:])
