"""A plot's series, UI-free: every point of a run in bounded memory, drawn at the plot's width.

A `Series` keeps its points in flat ``array('d')`` columns (x, mean y, min y,
max y). Past ``capacity`` stored points it merges neighbours pairwise and from
then on folds ``stride`` raw points into each stored one, so a run of any
length covers its whole history in at most ``capacity`` points.

Beside the stored points it keeps a pyramid: level k holds one entry per 2**k
stored points (mean, min, max), extended as points arrive. :func:`downsample`
draws from the finest level that has at most four times the plot's width, so a
redraw costs O(width), not O(points): 24 hours of 1 Hz samples (86,400 points)
downsample in well under a millisecond however long the run.

`tui.workbench.history.History` holds the series the workbench plots.
"""

from __future__ import annotations

import itertools
import math
import operator
from array import array
from bisect import bisect_left
from typing import Any, Iterable, NamedTuple

# a series fed at 1 Hz (telemetry, a soak's forwarded steps) fills within the first hour, so from then on the
# plots' memory is flat (issue 13 item 4: under 5 % growth; bench/soak_day.py); 3,000 stored points, each with
# its min and max, are 25 a column of a 120-column plot
DEFAULT_CAPACITY = 3_000


class _Level:
    """Columns of one level: x (mean), y (mean), lo (min y), hi (max y)."""

    __slots__ = ("xs", "ys", "lo", "hi")

    def __init__(self) -> None:
        self.xs, self.ys, self.lo, self.hi = array("d"), array("d"), array("d"), array("d")

    def __len__(self) -> int:
        return len(self.xs)

    def copy(self) -> "_Level":
        level = _Level()
        level.xs, level.ys, level.lo, level.hi = array("d", self.xs), array("d", self.ys), array("d", self.lo), \
            array("d", self.hi)
        return level

    def extend_pairs_of(self, other: "_Level", start: int, stop: int) -> None:
        """One entry for each pair other[i], other[i + 1] from ``start`` (even) while both are before ``stop``
        (equal weights: both hold as many raw points). Column by column, a level in one go."""
        stop = start + (stop - start) // 2 * 2
        for mine, theirs in ((self.xs, other.xs), (self.ys, other.ys)):
            mine.extend([(a + b) / 2 for a, b in zip(theirs[start:stop:2], theirs[start + 1:stop:2])])
        # min() and max() of two, inline: the first unless the second is beyond it
        self.lo.extend([b if b < a else a for a, b in zip(other.lo[start:stop:2], other.lo[start + 1:stop:2])])
        self.hi.extend([b if b > a else a for a, b in zip(other.hi[start:stop:2], other.hi[start + 1:stop:2])])


class Series:
    """(x, y) points in arrival order, bounded by ``capacity`` stored points."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        if capacity < 4:
            raise ValueError("capacity must be at least 4")
        self.capacity = capacity - capacity % 2
        self.base = _Level()              # the stored points
        self.levels: list[_Level] = []    # levels[k - 1]: one entry per 2**k complete stored points
        self.stride = 1       # raw points folded into one stored point
        self._last_n = 0      # raw points folded into the last stored point
        self.count = 0        # raw points seen
        self.version = 0      # changes with every append, so drawings can be cached
        self.ascending = True
        self.last: tuple[float, float] | None = None
        self.key = next(_KEYS)   # the same in its frozen copies: a drawing is cached per series, not per copy

    def refill(self, xs: Iterable[Any], ys: Iterable[Any]) -> None:
        """Its points replaced by ``zip(xs, ys)`` (a live run's first steps, split again as more arrive); the
        version moves on, so no drawing of the old points is taken for the new ones."""
        version, key = self.version, self.key
        self.__init__(self.capacity)  # type: ignore[misc]
        self.version, self.key = version + 1, key
        self.extend(xs, ys)

    def frozen(self) -> "FrozenSeries":
        """A copy that never changes (a live snapshot's): the same points, pyramid and flags, arrays copied."""
        copy = FrozenSeries.__new__(FrozenSeries)
        copy.__dict__.update(self.__dict__)
        copy.base = self.base.copy()
        copy.levels = [level.copy() for level in self.levels]
        return copy

    @property
    def xs(self) -> array:
        return self.base.xs

    @property
    def ys(self) -> array:
        return self.base.ys

    def __len__(self) -> int:
        return len(self.base)

    def append(self, x: float | None, y: float | None) -> None:
        """Add a point; a missing or non-finite value is skipped (a gap, never a zero)."""
        point = _finite_point(x, y)
        if point is not None:
            self._add_usable([point[0]], [point[1]])

    def extend(self, xs: Iterable[Any], ys: Iterable[Any]) -> None:
        """Add the points ``zip(xs, ys)`` in order, each as :meth:`append` says: the same stored points,
        pyramid and flags, float for float, whether they come one by one (live) or all at once (a run
        read back from disk).

        Column-wise: the points that fold into the stored ones are taken a column at a time (the k-th
        point of every stored point), and the pyramid is carried up once at the end (and before a
        compaction), so a run's 200,000 steps go in a tenth of a second.
        """
        self._add_usable(*_usable(xs, ys))

    def _add_usable(self, fx: list[float], fy: list[float]) -> None:
        """:meth:`extend` once the points are finite floats."""
        i, n = 0, len(fx)
        if not n:
            return
        while i < n:
            if len(self.base) and self._last_n < self.stride:
                i = self._fill_last(fx, fy, i)
            elif len(self.base) >= self.capacity:
                # every stored point is complete (else it would take the point): level 1 becomes the stored
                # points, the stride doubles, the memory halves
                self._carry_up()
                self.base = self.levels.pop(0)
                self.stride *= 2
                self._last_n = self.stride
            else:
                i = self._add_stored(fx, fy, i)
        self.count += n
        self.version += n
        self.last = (fx[-1], fy[-1])
        self._carry_up()

    def _fill_last(self, fx: list[float], fy: list[float], i: int) -> int:
        """Fold points from ``i`` into the partly filled last stored point: a running mean, and the envelope."""
        base, k = self.base, self._last_n
        stop = min(len(fx), i + self.stride - k)
        mx, my, lo, hi = base.xs[-1], base.ys[-1], base.lo[-1], base.hi[-1]
        for x, y in zip(fx[i:stop], fy[i:stop]):
            if x < mx:
                self.ascending = False
            mx, my = (mx * k + x) / (k + 1), (my * k + y) / (k + 1)
            if y < lo:
                lo = y
            if y > hi:
                hi = y
            k += 1
        base.xs[-1], base.ys[-1], base.lo[-1], base.hi[-1] = mx, my, lo, hi
        self._last_n = k
        return stop

    def _add_stored(self, fx: list[float], fy: list[float], i: int) -> int:
        """New stored points of ``stride`` raw points each from ``i``, up to the capacity: the same running
        means as point by point, computed for all of them at once, one folded point after another."""
        base, s = self.base, self.stride
        stop = min(len(fx), i + (self.capacity - len(base)) * s)
        seg_x, seg_y = fx[i:stop], fy[i:stop]
        mx, my = seg_x[::s], seg_y[::s]
        lo, hi = my[:], my[:]
        firsts = mx[:]
        if len(base) and firsts[0] < base.xs[-1]:
            self.ascending = False
        for k in range(1, min(s, len(seg_x))):  # one point in (live): no column past it
            kx, ky = seg_x[k::s], seg_y[k::s]  # the last stored point may have fewer: zip stops there
            if self.ascending and any(map(operator.lt, kx, mx)):
                self.ascending = False
            m = len(kx)
            mx[:m] = [(a * k + x) / (k + 1) for a, x in zip(mx, kx)]
            my[:m] = [(a * k + y) / (k + 1) for a, y in zip(my, ky)]
            lo[:m] = [y if y < a else a for a, y in zip(lo, ky)]
            hi[:m] = [y if y > a else a for a, y in zip(hi, ky)]
        # each stored point's first raw point against the mean of the one before it
        if self.ascending and any(map(operator.lt, firsts[1:], mx)):
            self.ascending = False
        base.xs.extend(mx)
        base.ys.extend(my)
        base.lo.extend(lo)
        base.hi.extend(hi)
        self._last_n = len(seg_x) - (len(mx) - 1) * s
        return stop

    def _carry_up(self) -> None:
        """Bring the pyramid up to date with the complete stored points: level k pairs level k - 1's entries.

        Every level is up to date after each call, so a level that gains nothing ends the walk.
        """
        below = self.base
        complete = len(below) if self._last_n == self.stride else len(below) - 1
        for k in itertools.count():
            if complete < 2:
                return
            if k == len(self.levels):
                self.levels.append(_Level())
            level = self.levels[k]
            had = len(level)
            if complete < 2 * had + 2:
                return
            level.extend_pairs_of(below, 2 * had, complete)
            below, complete = level, len(level)


class FrozenSeries(Series):
    """A `Series` copied for a snapshot: reading it is as a series; adding to it is an error."""

    def _add_usable(self, fx: list[float], fy: list[float]) -> None:
        raise TypeError("a snapshot's series does not change: add to the History's")


_KEYS = itertools.count()


def _usable(xs: Iterable[Any], ys: Iterable[Any]) -> tuple[list[float], list[float]]:
    """The points of ``zip(xs, ys)`` as floats, those with a missing, non-numeric or non-finite value left out."""
    xs, ys = list(xs), list(ys)
    n = min(len(xs), len(ys))
    try:  # the usual case, every value a finite number: a column at a time
        fx, fy = [float(x) for x in xs[:n]], [float(y) for y in ys[:n]]
        if math.isfinite(sum(fx)) and math.isfinite(sum(fy)):  # an inf or a NaN (or an overflow) would show
            return fx, fy
    except (TypeError, ValueError):
        pass
    points = [p for p in map(_finite_point, xs, ys) if p is not None]
    return [x for x, _ in points], [y for _, y in points]


def _finite_point(x: Any, y: Any) -> tuple[float, float] | None:
    """(x, y) as floats, or None when either is missing, not a number or not finite."""
    if x is None or y is None:
        return None
    try:
        x, y = float(x), float(y)
    except (TypeError, ValueError):
        return None
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


class Drawn(NamedTuple):
    """A series reduced to at most ``width`` points: x, mean, min and max per bucket."""

    xs: list[float]
    ys: list[float]
    lows: list[float]
    highs: list[float]


def downsample(series: Series, width: int) -> Drawn:
    """At most ``width`` buckets over the x range (over the index if x went backwards)."""
    base = series.base
    n = len(base)
    width = max(1, int(width))
    if n <= width:
        return Drawn(base.xs.tolist(), base.ys.tolist(), base.lo.tolist(), base.hi.tolist())
    # the finest level with at most 4 x width entries, then the stored points it does not cover yet
    level, size = base, 1
    for k, candidate in enumerate(series.levels, start=1):
        if len(level) <= 4 * width:
            break
        level, size = candidate, 2 ** k
    covered = n if level is base else len(level) * size
    xs = level.xs.tolist() + base.xs[covered:].tolist()
    ys = level.ys.tolist() + base.ys[covered:].tolist()
    lo = level.lo.tolist() + base.lo[covered:].tolist()
    hi = level.hi.tolist() + base.hi[covered:].tolist()
    weights = [float(size)] * len(level) + [1.0] * (n - covered)
    weights[-1] *= series._last_n / series.stride  # a partly filled last point counts for what it holds
    m = len(xs)
    if series.ascending and xs[-1] > xs[0]:
        x0, span = xs[0], xs[-1] - xs[0]
        edges = [bisect_left(xs, x0 + span * k / width) for k in range(width)] + [m]
    else:
        edges = [m * k // width for k in range(width)] + [m]
    out = Drawn([], [], [], [])
    for a, b in zip(edges, edges[1:]):
        if b <= a:
            continue
        w = weights[a:b]
        total = sum(w)
        out.xs.append(sum(x * wi for x, wi in zip(xs[a:b], w)) / total)
        out.ys.append(sum(y * wi for y, wi in zip(ys[a:b], w)) / total)
        out.lows.append(min(lo[a:b]))
        out.highs.append(max(hi[a:b]))
    return out


class DrawCache:
    """Remembers the last downsampling of each series per width, so a repaint with no new data is free."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[int, int, Drawn]] = {}

    def get(self, series: Series, width: int) -> Drawn:
        key = series.key
        hit = self._cache.get(key)
        if hit and hit[0] == series.version and hit[1] == width:
            return hit[2]
        drawn = downsample(series, width)
        self._cache[key] = (series.version, width, drawn)
        return drawn
