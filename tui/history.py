"""Plot history, UI-free: every point of a run in bounded memory, drawn at the plot's width.

A `Series` keeps (x, y) points in two flat ``array('d')``. Past ``capacity``
stored points it merges neighbours pairwise (mean) and from then on folds
``stride`` raw points into each stored one, so a run of any length covers its
whole history in at most ``capacity`` points. :func:`downsample` buckets a
series to the plot's width (mean, min and max per bucket) with C-level slices,
so 24 hours of 1 Hz samples (86,400 points) redraw in about a millisecond.

`History` holds the series the workbench plots: loss and throughput per step
for each run, and device/host telemetry over time. It is filled from live
events and samples, or rebuilt from run records for the headless screenshot.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, NamedTuple

from workloads import protocol

DEFAULT_CAPACITY = 100_000  # 2 x 800 KB per series at most


class Series:
    """(x, y) points in arrival order, bounded by ``capacity`` stored points."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        if capacity < 4:
            raise ValueError("capacity must be at least 4")
        self.capacity = capacity - capacity % 2
        self.xs = array("d")
        self.ys = array("d")
        self.stride = 1       # raw points folded into one stored point
        self._last_n = 0      # raw points folded into the last stored point
        self.count = 0        # raw points seen
        self.version = 0      # changes with every append, so drawings can be cached
        self.ascending = True
        self.last: tuple[float, float] | None = None

    def __len__(self) -> int:
        return len(self.xs)

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
        if self.xs and x < self.xs[-1]:
            self.ascending = False
        self.count += 1
        self.version += 1
        self.last = (x, y)
        if self.xs and self._last_n < self.stride:
            # fold into the last stored point: a running mean
            n = self._last_n
            self.xs[-1] = (self.xs[-1] * n + x) / (n + 1)
            self.ys[-1] = (self.ys[-1] * n + y) / (n + 1)
            self._last_n = n + 1
            return
        if len(self.xs) >= self.capacity:
            self._compact()
        self.xs.append(x)
        self.ys.append(y)
        self._last_n = 1

    def _compact(self) -> None:
        """Merge neighbours pairwise; the stride doubles, the memory halves."""
        xs, ys, n, stride = self.xs, self.ys, len(self.xs), self.stride
        pairs = n // 2
        new_xs = array("d", ((xs[2 * i] + xs[2 * i + 1]) / 2 for i in range(pairs)))
        new_ys = array("d", ((ys[2 * i] + ys[2 * i + 1]) / 2 for i in range(pairs)))
        last_n = self._last_n
        if n % 2:
            new_xs.append(xs[-1])
            new_ys.append(ys[-1])
        else:
            # the last pair holds a partly filled point: weight it by what it holds
            w = stride + last_n
            new_xs[-1] = (xs[-2] * stride + xs[-1] * last_n) / w
            new_ys[-1] = (ys[-2] * stride + ys[-1] * last_n) / w
            last_n = w
        self.xs, self.ys = new_xs, new_ys
        self.stride = stride * 2
        self._last_n = min(last_n, self.stride)


class Drawn(NamedTuple):
    """A series reduced to at most ``width`` points: x, mean, min and max per bucket."""

    xs: list[float]
    ys: list[float]
    lows: list[float]
    highs: list[float]


def downsample(series: Series, width: int) -> Drawn:
    """At most ``width`` buckets over the x range (over the index if x went backwards)."""
    xs, ys = series.xs, series.ys
    n = len(xs)
    width = max(1, int(width))
    if n <= width:
        x_list, y_list = xs.tolist(), ys.tolist()
        return Drawn(x_list, y_list, y_list, y_list)
    if series.ascending and xs[-1] > xs[0]:
        x0, span = xs[0], xs[-1] - xs[0]
        edges = [bisect_left(xs, x0 + span * k / width) for k in range(width)] + [n]
    else:
        edges = [n * k // width for k in range(width)] + [n]
    out = Drawn([], [], [], [])
    for a, b in zip(edges, edges[1:]):
        if b <= a:
            continue
        chunk = ys[a:b]
        out.xs.append(sum(xs[a:b]) / (b - a))
        out.ys.append(sum(chunk) / (b - a))
        out.lows.append(min(chunk))
        out.highs.append(max(chunk))
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
