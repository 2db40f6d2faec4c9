"""``--find-max``: the highest load that holds an SLO, found by a bracketing search (pure logic: the sweep runs each
level it asks for and tells it the verdict).

The search starts at the ceiling the saturation run measured (the requests/s the server completed with every slot
busy, or the concurrency it ran at): if that holds, nothing higher can be served and it stops there. Otherwise it
halves the load until a level holds (none holding down to the last level it may try: no level meets the SLO), then
bisects the bracket geometrically until its two ends are within ``tolerance`` of each other (5 %: "7.5 req/s holds,
7.8 does not") or the levels run out. Before it ends on a bracket it probes the bracket's missing end once more (a
level of its own, with its own arrivals): one noisy level that missed below the capacity (a hiccup of a shared host,
a burst of Poisson's) would otherwise close the bracket under it for good, since every later level is bisected below
it (bench/serve_find_max.py read 125 and 186 req/s against 200 so). A second miss confirms it; a hold there reopens
the bracket above it, and the search goes on. A level that held is not probed again: above the capacity the queue
grows for as long as the level lasts, so a hold there by chance is far rarer than a miss below it. Levels are rounded to three significant figures (a concurrency to a whole
number), so two runs against the same server ask for the same levels while the verdicts agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

BRACKET = "bracket"       # the two ends within the tolerance
CEILING = "ceiling"       # the ceiling itself holds
NONE_MEETS = "none"       # every level tried missed
LEVELS = "levels"         # the levels ran out first
BUDGET = "budget"         # the time budget ran out first
STOPS = (BRACKET, CEILING, NONE_MEETS, LEVELS, BUDGET)


def rounded(value: float, whole: bool) -> float:
    if whole:
        return float(max(1, round(value)))
    return float(f"{value:.3g}")


@dataclass
class Search:
    ceiling: float
    levels_max: int = 8
    tolerance: float = 0.05
    whole: bool = False                      # a concurrency: whole numbers
    tried: list[tuple[float, bool]] = field(default_factory=list)
    stop: str | None = None

    @property
    def holds(self) -> float | None:
        """The highest level that held."""
        return max((v for v, ok in self.tried if ok), default=None)

    @property
    def misses(self) -> float | None:
        """The lowest level that missed above the highest that held (a lower one that missed while a higher held is
        the server's noise, not the bracket)."""
        lo = self.holds
        return min((v for v, ok in self.tried if not ok and (lo is None or v > lo)), default=None)

    def next(self) -> float | None:
        """The next level to try, or None with :attr:`stop` set."""
        if self.stop is not None:
            return None
        lo, hi = self.holds, self.misses
        if not self.tried:
            return rounded(self.ceiling, self.whole)
        if lo is not None and lo >= rounded(self.ceiling, self.whole):
            return self._end(CEILING)
        if lo is None:
            down = rounded(hi / 2, self.whole)
            if (self.whole and hi <= 1) or len(self.tried) >= self.levels_max:
                return self._end(NONE_MEETS)
            return down
        closed = hi / lo <= 1 + self.tolerance or (self.whole and hi - lo <= 1)
        mid = rounded(math.sqrt(lo * hi), self.whole)
        if closed or mid in (lo, hi):    # (rounding met an end: the bracket is as fine as the levels can be)
            return self._confirm(hi)
        if len(self.tried) >= self.levels_max:
            return self._end(LEVELS)
        return mid

    def _confirm(self, hi: float) -> float | None:
        """The bracket's missing end once more where it missed only once, else the end (no level left to probe it
        again: the bracket as it stands)."""
        if sum(v == hi for v, _ in self.tried) >= 2 or len(self.tried) >= self.levels_max:
            return self._end(BRACKET)
        return hi

    def record(self, value: float, holds: bool) -> None:
        self.tried.append((value, holds))

    def _end(self, why: str) -> None:   # next()'s None, with the reason kept
        self.stop = why
        return None

    def out_of_time(self) -> None:
        if self.stop is None:
            self.stop = BUDGET
