"""Plot history, UI-free: the series the workbench plots (`tui.workbench.history_series`: bounded, drawn at the plot's width).

`History` holds loss and throughput per step
for each run (the throughput split into the median's steps and the warm-up's by `tui.store.series`, the
same split the report's chart draws), and device/host telemetry over time. It is filled from live
events and samples, or rebuilt from run records for the headless screenshot.
It also knows where each run is (its start event's device): while the runs shown
ran on the CPU, ``cards_unused`` is true and the plots leave the cards out, since
their readings are not those runs' data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterable

from tui.cpu_trap import is_cpu
from tui.store.series import (DEVICE_READINGS, HOST_READINGS, SETTLED_STEPS, host_series, indexed_device_series,
                              is_flagged_warmup, record_step_points, step_points)
from tui.store.telemetry import Telemetry, memory_pct
from tui.workbench.history_series import DEFAULT_CAPACITY, Series
from workloads import protocol, registry
from workloads.rundir.sample_fields import (CPU_PCT, DEVICES, ERRORS, HOST, INDEX, MEM_TOTAL_BYTES, MEM_USED_BYTES,
                                            NAME, PER_CORE_PCT, POWER_W, PROCESSES, SOURCES, T, TEMPERATURE_C,
                                            THROTTLE_REASONS, UTIL_GPU_PCT)

__all__ = ["History", "RunSeries"]


@dataclass
class RunSeries:
    """One run's per-step series: the throughput of the steps the median counts, and apart, the warm-up's."""

    label: str
    unit: str | None
    loss: Series
    throughput: Series
    warmup: Series
    device: str | None = None   # from its start event; None until then
    emits_warmup: bool = True   # its workload's spec's warmup_emits_steps (the warm-up rule reads it)
    # its first steps, split again as each arrives (the default warm-up is a share of the steps) until
    # SETTLED_STEPS of them have a throughput; then None, and a step is warm-up only when flagged
    first_steps: list[protocol.Step] | None = field(default_factory=list, repr=False)

    def add_step(self, step: protocol.Step) -> None:
        self.loss.append(step.step, step.loss)
        if self.first_steps is None:
            (self.warmup if is_flagged_warmup(step) else self.throughput).append(step.step, step.throughput)
            return
        self.first_steps.append(step)
        points = step_points(self.first_steps, emits_warmup=self.emits_warmup)
        self.throughput.refill(points.rated, points.throughput)
        self.warmup.refill(points.rated, points.warmup)
        if len(points.rated) >= SETTLED_STEPS:
            self.first_steps = None


class _SeriesByName(dict):
    """name -> `Series`, where a series a record brought (:meth:`History.add_record`) takes its points when it is
    first read: a plot shows a few of a run's series at a time (8 cards: 34 series, the utilisation plot 17), and
    a day's points through a series cost ~40 ms. Reading it (``[name]``, get, values, items, pop, copy) gives it
    whole; its name is listed (``in``, iteration) from the start, in the order the samples named it.

    Points that arrive for a series still waiting (a followed run's samples, the host's memory no plot reads) are
    kept in one list after the record's, and the series is built once they pass `TAIL_POINTS`: a series nobody
    reads holds no more than that."""

    TAIL_POINTS = 4096

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, list[tuple[list[float], Callable[[], list[Any]]]]] = {}
        self._tails: dict[str, tuple[list[float], list[Any]]] = {}   # the points arrived after a record's

    def later(self, name: str, xs: list[float], ys: Callable[[], list[Any]], capacity: int) -> None:
        """Points for the series ``name`` (their y: ``ys()``, a call), added when it is first read."""
        if name not in self:
            self[name] = Series(capacity)
        self._tails.pop(name, None)   # points arriving from now on come after this record's
        self.pending.setdefault(name, []).append((xs, ys))

    def extend(self, name: str, xs: list[float], ys: list[Any]) -> None:
        """Points for the series ``name``, after those it has (and those still to come from a record)."""
        pending = self.pending.get(name)
        if pending is None:
            self[name].extend(xs, ys)
            return
        tail = self._tails.get(name)
        if tail is None:
            tail = self._tails[name] = ([], [])
            pending.append((tail[0], partial(list, tail[1])))
        tail[0].extend(xs)
        tail[1].extend(ys)
        if len(tail[0]) >= self.TAIL_POINTS:
            self[name]   # built now: a series no plot reads would hold every point that came

    def __getitem__(self, name: str) -> Series:
        series = dict.__getitem__(self, name)
        self._tails.pop(name, None)
        for xs, ys in self.pending.pop(name, ()):
            series.extend(xs, ys())
        return series

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    def values(self) -> list[Series]:  # type: ignore[override]
        return [self[name] for name in self]

    def items(self) -> list[tuple[str, Series]]:  # type: ignore[override]
        return [(name, self[name]) for name in self]

    def pop(self, name: str, *default: Any) -> Any:  # type: ignore[override]
        if name in self:
            self[name]   # its points first
        return super().pop(name, *default)

    def copy(self) -> dict[str, Series]:  # type: ignore[override]
        return dict(self.items())

    def clear(self) -> None:
        self.pending.clear()
        self._tails.clear()
        super().clear()


class History:
    """Everything the plots draw: per-run step series and telemetry over time."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        self.capacity = capacity
        self.runs: dict[str, RunSeries] = {}
        self.telemetry: dict[str, Series] = _SeriesByName()  # "util:0", "mem:0", "temp:0", "power:0", "cpu", "ram"
        self.device_names: dict[int, str] = {}
        self.t0: float | None = None            # telemetry x = seconds since the first sample

    # runs -------------------------------------------------------------------------------
    def run(self, key: str, label: str | None = None, unit: str | None = None,
            emits_warmup: bool = True) -> RunSeries:
        """The run's series, made at its first use (``emits_warmup``: its spec's ``warmup_emits_steps``)."""
        series = self.runs.get(key)
        if series is None:
            series = RunSeries(label or key, unit, Series(self.capacity), Series(self.capacity),
                               Series(self.capacity), emits_warmup=emits_warmup)
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
        """Every run shown ran on the CPU beside listed cards: the cards' readings over them are not their data.

        False on a machine that lists no card: there the CPU was all there was, and nothing went unused."""
        return (bool(self.runs) and all(is_cpu(run.device) for run in self.runs.values())
                and any(name.startswith("util:") for name in self.telemetry))

    def add_step(self, key: str, step: protocol.Step) -> None:
        self.run(key, unit=step.unit).add_step(step)

    # telemetry --------------------------------------------------------------------------
    def _tseries(self, name: str) -> Series:
        series = dict.get(self.telemetry, name)   # as it is: a record's points are not needed to add more
        if series is None:
            series = self.telemetry[name] = Series(self.capacity)
        return series

    def add_sample(self, sample: Any) -> None:
        """A `tui.telemetry.Sample` (or anything with ``t``, ``devices``, ``host``)."""
        self._add_readings((_readings_of(sample),))

    def add_sample_line(self, data: dict[str, Any]) -> None:
        """A telemetry.jsonl line (a run followed from disk), as :meth:`add_sample` would its `Sample`."""
        self._add_readings((_readings_of_line(data),))

    def drop_telemetry(self) -> None:
        """Forget the telemetry: a run read from disk brings its own, from its start (the time axis restarts)."""
        self.telemetry.clear()
        self.t0 = None

    def _add_readings(self, readings: Iterable[_Readings | None]) -> None:
        """Samples' readings in order, gathered per series and added with one :meth:`Series.extend` each."""
        columns: dict[str, tuple[list[float], list[Any]]] = {}

        def column(name: str) -> tuple[list[float], list[Any]]:
            found = columns.get(name)
            if found is None:
                self._tseries(name)  # created in the order the samples name them, as one by one
                found = columns[name] = ([], [])
            return found

        # a device's four columns, by its index (an int, or as it is spelled in the series' names)
        of_device: dict[Any, list[tuple[list[float], list[Any]]]] = {}
        for reading in readings:
            if reading is None:
                continue
            t, devices, host = reading
            if self.t0 is None:
                self.t0 = t
            x = t - self.t0
            for index, name, *values in devices:
                if name:
                    self.device_names[index] = name
                key = index if index.__class__ is int else f"{index}"
                found = of_device.get(key)
                if found is None:
                    found = of_device[key] = [column(f"{kind}:{index}") for kind in _DEVICE_SERIES]
                for (xs, ys), value in zip(found, values):
                    xs.append(x)
                    ys.append(value)
            if host is not None:
                for kind, value in zip(_HOST_SERIES, host):
                    xs, ys = column(kind)
                    xs.append(x)
                    ys.append(value)
        for name, (xs, ys) in columns.items():
            self.telemetry.extend(name, xs, ys)  # type: ignore[attr-defined]

    def device_indices(self) -> list[int]:
        seen = {int(name.split(":")[1]) for name in self.telemetry if name.startswith("util:")}
        return sorted(seen)

    # records ----------------------------------------------------------------------------
    def add_record(self, record: Any) -> None:
        """A `tui.store.RunRecord`: its steps, and its telemetry lines (a torn one is skipped).

        The same series as :meth:`add_step` per step and :meth:`add_sample` per line, built column by
        column: a long run (200,000 steps, a day of samples) is redrawn for the report in well under a second.
        The throughput is split as the report's chart splits it (`tui.store.series.record_step_points`: the
        result's warm-up count too).
        """
        key = record.id
        steps = record.steps
        unit = next((s.unit for s in steps if s.unit), None)
        series = self.run(key, label=record.workload or key, unit=unit,
                          emits_warmup=registry.spec_for(record.workload).warmup_emits_steps)
        start = record.start
        self.see_device(key, start.device if start is not None else None)
        points = record_step_points(record)
        series.loss.extend(points.steps, points.loss)
        series.throughput.extend(points.rated, points.throughput)
        series.warmup.extend(points.rated, points.warmup)
        # a run followed on from here (attached) splits its first steps again as more arrive
        series.first_steps = list(steps) if len(points.rated) < SETTLED_STEPS else None
        self._add_columns(Telemetry.of(record.telemetry))

    def _add_columns(self, telemetry: Telemetry) -> None:
        """A run's telemetry columns, as :meth:`add_sample` would add its samples one by one: the same series, in
        the order the samples name them (a sample's devices, then the host), the same points; each series takes
        them when it is first read (`_SeriesByName`)."""
        t = telemetry.t
        if not t:
            return
        if self.t0 is None:
            self.t0 = t[0]
        t0, n = self.t0, len(t)
        # series are made in the order the samples name them: by (first sample, place in it); the host's
        # (every usable sample has one, if empty) after the first sample's devices
        host = (0, len(telemetry.order[0]))
        for device in sorted(indexed_device_series(telemetry), key=lambda d: d.first):
            if host is not None and host < device.first:
                self._add_host_columns(telemetry, n)
                host = None
            key = device.index if device.index.__class__ is int else f"{device.index}"
            if device.name:
                self.device_names[key] = device.name
            xs = device.xs(t, t0)
            for kind, ys in device.readings.items():
                self.telemetry.later(f"{kind}:{key}", xs, ys, self.capacity)  # type: ignore[attr-defined]
        if host is not None:
            self._add_host_columns(telemetry, n)

    def _add_host_columns(self, telemetry: Telemetry, n: int) -> None:
        """The host's series from a run's telemetry columns (their first ``n`` samples), read when first shown."""
        xs = [v - self.t0 for v in telemetry.t[:n]]  # type: ignore[operator]
        # what the columns hold now: a follower may add to them before the series is read
        for kind, ys in host_series(telemetry, n).items():
            self.telemetry.later(kind, xs, ys, self.capacity)  # type: ignore[attr-defined]


# what the plots read of one sample: t, per device (index, name, util %, memory %, °C, W), host (cpu %, ram %)
_Readings = tuple[Any, list[tuple[Any, ...]], "tuple[Any, Any] | None"]
# (the names of the series they go to, in that order: those a run's columns are read into, `tui.store.series`)
_DEVICE_SERIES = tuple(DEVICE_READINGS)
_HOST_SERIES = tuple(HOST_READINGS)


def _readings_of(sample: Any) -> _Readings | None:
    """A `tui.telemetry.Sample` (or anything with ``t``, ``devices``, ``host``); None when it has no time."""
    t = getattr(sample, "t", None)
    if t is None:
        return None
    devices = [(dev.index if dev.index is not None else i, dev.name, dev.util_gpu_pct,
                memory_pct(dev.mem_used_bytes, dev.mem_total_bytes), dev.temperature_c, dev.power_w)
               for i, dev in enumerate(getattr(sample, "devices", ()) or ())]
    host = getattr(sample, "host", None)
    return t, devices, (host.cpu_pct, memory_pct(host.mem_used_bytes, host.mem_total_bytes)) if host is not None else None


def _readings_of_line(data: dict[str, Any]) -> _Readings | None:
    """A telemetry.jsonl line: what ``_readings_of(Sample.from_dict(data))`` gives (None where that raises),
    read from the dict itself when it has the usual shape (a day of samples: 86,400 objects not built)."""
    if not _plain_line(data):
        return _readings_of(_sample_from(data))
    devices = []
    for i, dev in enumerate(data.get(DEVICES, ())):
        index = dev.get(INDEX)
        devices.append((index if index is not None else i, dev.get(NAME), dev.get(UTIL_GPU_PCT),
                        memory_pct(dev.get(MEM_USED_BYTES), dev.get(MEM_TOTAL_BYTES)), dev.get(TEMPERATURE_C),
                        dev.get(POWER_W)))
    host = data.get(HOST) or {}  # Sample.from_dict gives an empty HostSample for none
    return float(data[T]), devices, (host.get(CPU_PCT), memory_pct(host.get(MEM_USED_BYTES), host.get(MEM_TOTAL_BYTES)))


def _plain_line(data: dict[str, Any]) -> bool:
    """Will `Sample.from_dict` take this line, for sure and with nothing converted that the plots read?"""
    if data.get(T).__class__ not in (int, float):
        return False
    devices, host = data.get(DEVICES, ()), data.get(HOST)
    if not (isinstance(devices, (list, tuple)) and (host is None or isinstance(host, dict))):
        return False
    if not all(isinstance(data.get(key, ()), (list, tuple)) for key in (ERRORS, SOURCES)):
        return False
    if host and not isinstance(host.get(PER_CORE_PCT, ()), (list, tuple, type(None))):
        return False
    for dev in devices:
        if not isinstance(dev, dict) or not isinstance(dev.get(THROTTLE_REASONS, ()), (list, tuple, type(None))):
            return False
        processes = dev.get(PROCESSES)
        if processes is not None and not (isinstance(processes, (list, tuple)) and all(
                isinstance(p, (list, tuple)) and len(p) == 3 for p in processes)):
            return False
    return True


def _sample_from(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    from tui.telemetry.sample import Sample

    try:
        return Sample.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return None
