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
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

WARMUP_SHARE = 10   # one step in this many is warm-up, when nothing better says
WARMUP_MAX = 10


def default_warmup(n: int) -> int:
    """Of ``n`` steps whose warm-up nobody flagged or counted, how many first ones are left out."""
    return 0 if n < 3 else min(max(1, n // WARMUP_SHARE), WARMUP_MAX)


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
