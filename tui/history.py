"""Plot history, UI-free: every point of a run in bounded memory, drawn at the plot's width.

A `Series` keeps its points in flat ``array('d')`` columns (x, mean y, min y,
max y). Past ``capacity`` stored points it merges neighbours pairwise and from
then on folds ``stride`` raw points into each stored one, so a run of any
length covers its whole history in at most ``capacity`` points.

Beside the stored points it keeps a pyramid: level k holds one entry per 2**k
stored points (mean, min, max), extended as points arrive. :func:`downsample`
draws from the finest level that has at most four times the plot's width, so a
redraw costs O(width), not O(points): 24 hours of 1 Hz samples (86,400 points)
downsample in well under a millisecond however long the run.

`History` holds the series the workbench plots: loss and throughput per step
for each run, and device/host telemetry over time. It is filled from live
events and samples, or rebuilt from run records for the headless screenshot.
It also knows where each run is (its start event's device): while the runs shown
ran on the CPU, ``cards_unused`` is true and the plots leave the cards out, since
their readings are not those runs' data.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, NamedTuple

from tui.cpu_trap import is_cpu
from workloads import protocol

# 4 columns x 8 bytes x 25,000 points, twice with the pyramid: 1.6 MB per series at most
DEFAULT_CAPACITY = 25_000


class _Level:
    """Columns of one level: x (mean), y (mean), lo (min y), hi (max y)."""

    __slots__ = ("xs", "ys", "lo", "hi")

    def __init__(self) -> None:
        self.xs, self.ys, self.lo, self.hi = array("d"), array("d"), array("d"), array("d")

    def __len__(self) -> int:
        return len(self.xs)

    def push(self, x: float, y: float, lo: float, hi: float) -> None:
        self.xs.append(x)
        self.ys.append(y)
        self.lo.append(lo)
        self.hi.append(hi)

    def push_pair_of(self, other: "_Level", i: int) -> None:
        """One entry for other[i] and other[i + 1] (equal weights: both hold as many raw points)."""
        self.push((other.xs[i] + other.xs[i + 1]) / 2, (other.ys[i] + other.ys[i + 1]) / 2,
                  min(other.lo[i], other.lo[i + 1]), max(other.hi[i], other.hi[i + 1]))


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
        if x is None or y is None:
            return
        try:
            x, y = float(x), float(y)
        except (TypeError, ValueError):
            return
        if not (math.isfinite(x) and math.isfinite(y)):
            return
        base = self.base
        if len(base) and x < base.xs[-1]:
            self.ascending = False
        self.count += 1
        self.version += 1
        self.last = (x, y)
        self._add(x, y)
        if self._last_n == self.stride:
            self._promote()

    def _add(self, x: float, y: float) -> None:
        base = self.base
        if len(base) and self._last_n < self.stride:
            # fold into the last stored point: a running mean, and the envelope
            n = self._last_n
            base.xs[-1] = (base.xs[-1] * n + x) / (n + 1)
            base.ys[-1] = (base.ys[-1] * n + y) / (n + 1)
            base.lo[-1] = min(base.lo[-1], y)
            base.hi[-1] = max(base.hi[-1], y)
            self._last_n = n + 1
            return
        if len(base) >= self.capacity:
            self._compact()
            self._add(x, y)
            return
        base.push(x, y, y, y)
        self._last_n = 1

    def _promote(self) -> None:
        """The last stored point is complete: carry finished pairs up the pyramid."""
        below = self.base
        for k in range(len(self.levels) + 1):
            if len(below) % 2:
                return
            if k == len(self.levels):
                self.levels.append(_Level())
            level = self.levels[k]
            level.push_pair_of(below, len(below) - 2)
            below = level

    def _compact(self) -> None:
        """Level 1 becomes the stored points: the stride doubles, the memory halves."""
        base, stride = self.base, self.stride
        paired = 2 * len(self.levels[0]) if self.levels else 0
        new = self.levels.pop(0) if self.levels else _Level()
        # what level 1 does not cover yet (an unpaired point, a partly filled one) becomes one partial point
        rest = range(paired, len(base))
        weights = [stride if i < len(base) - 1 else self._last_n for i in rest]
        if weights:
            w = sum(weights)
            new.push(sum(base.xs[i] * wi for i, wi in zip(rest, weights)) / w,
                     sum(base.ys[i] * wi for i, wi in zip(rest, weights)) / w,
                     min(base.lo[i] for i in rest), max(base.hi[i] for i in rest))
            self._last_n = w
        else:
            self._last_n = 2 * stride
        self.base = new
        self.stride = 2 * stride


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
        key = id(series)
        hit = self._cache.get(key)
        if hit and hit[0] == series.version and hit[1] == width:
            return hit[2]
        drawn = downsample(series, width)
        self._cache[key] = (series.version, width, drawn)
        return drawn


@dataclass
class RunSeries:
    """One run's per-step series."""

    label: str
    unit: str | None
    loss: Series
    throughput: Series
    device: str | None = None   # from its start event; None until then


def _pct(used: float | None, total: float | None) -> float | None:
    if used is None or not total:
        return None
    return 100.0 * used / total


class History:
    """Everything the plots draw: per-run step series and telemetry over time."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        self.capacity = capacity
        self.runs: dict[str, RunSeries] = {}
        self.telemetry: dict[str, Series] = {}  # "util:0", "mem:0", "temp:0", "power:0", "cpu", "ram"
        self.device_names: dict[int, str] = {}
        self.t0: float | None = None            # telemetry x = seconds since the first sample

    # runs -------------------------------------------------------------------------------
    def run(self, key: str, label: str | None = None, unit: str | None = None) -> RunSeries:
        series = self.runs.get(key)
        if series is None:
            series = RunSeries(label or key, unit, Series(self.capacity), Series(self.capacity))
            self.runs[key] = series
        if unit and not series.unit:
            series.unit = unit
        return series

    def drop_runs(self) -> None:
        self.runs.clear()

    def see_device(self, key: str, device: str | None) -> None:
        """Where the run is (its start event's device)."""
        self.run(key).device = device or None

    @property
    def cards_unused(self) -> bool:
        """Every run shown ran on the CPU: the cards' readings over them are not their data."""
        return bool(self.runs) and all(is_cpu(run.device) for run in self.runs.values())

    def add_step(self, key: str, step: protocol.Step) -> None:
        series = self.run(key, unit=step.unit)
        series.loss.append(step.step, step.loss)
        series.throughput.append(step.step, step.throughput)

    # telemetry --------------------------------------------------------------------------
    def _tseries(self, name: str) -> Series:
        series = self.telemetry.get(name)
        if series is None:
            series = self.telemetry[name] = Series(self.capacity)
        return series

    def add_sample(self, sample: Any) -> None:
        """A `tui.telemetry.Sample` (or anything with ``t``, ``devices``, ``host``)."""
        t = getattr(sample, "t", None)
        if t is None:
            return
        if self.t0 is None:
            self.t0 = t
        x = t - self.t0
        for i, dev in enumerate(getattr(sample, "devices", ()) or ()):
            index = dev.index if dev.index is not None else i
            if dev.name:
                self.device_names[index] = dev.name
            self._tseries(f"util:{index}").append(x, dev.util_gpu_pct)
            self._tseries(f"mem:{index}").append(x, _pct(dev.mem_used_bytes, dev.mem_total_bytes))
            self._tseries(f"temp:{index}").append(x, dev.temperature_c)
            self._tseries(f"power:{index}").append(x, dev.power_w)
        host = getattr(sample, "host", None)
        if host is not None:
            self._tseries("cpu").append(x, host.cpu_pct)
            self._tseries("ram").append(x, _pct(host.mem_used_bytes, host.mem_total_bytes))

    def device_indices(self) -> list[int]:
        seen = {int(name.split(":")[1]) for name in self.telemetry if name.startswith("util:")}
        return sorted(seen)

    # records ----------------------------------------------------------------------------
    def add_record(self, record: Any) -> None:
        """A `tui.runs.RunRecord`: its steps, and its telemetry lines (a torn one is skipped)."""
        key = record.id
        unit = next((s.unit for s in record.steps if s.unit), None)
        self.run(key, label=record.workload or key, unit=unit)
        start = record.start
        self.see_device(key, start.device if start is not None else None)
        for step in record.steps:
            self.add_step(key, step)
        for data in record.telemetry:
            sample = _sample_from(data)
            if sample is not None:
                self.add_sample(sample)


def _sample_from(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    from tui.telemetry.sample import Sample

    try:
        return Sample.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return None
