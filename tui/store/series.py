"""A run's series, built once for the screen and the report alike (UI-free, no plotting library).

    points = step_points(record.steps, told=..., emits_warmup=spec.warmup_emits_steps)
    devices, host = device_series(Telemetry.of(record.telemetry)), host_series(telemetry)

The workbench's plots (`tui.workbench.history`, live step by step or from a record) and the report's charts
(`tui.report.charts`) draw what this module gives: the loss per step, and the throughput per step split into the
steps the median counts and, apart (greyed by both), the warm-up steps it leaves out, by the one rule
(`workloads.facts.warmup.split_warmup`: flagged steps, else the result's count, else the default share).

And the telemetry over time (`tui.store.telemetry.Telemetry`'s columns): per device its utilisation %, memory used %,
temperature and power (`DEVICE_READINGS`; the report's chart draws the first two), and the host's CPU % and memory
used % (`HOST_READINGS`). The report draws one line a device (`device_series`); the screen one a shown index
(`indexed_device_series`: a device renumbered, or two shown under one index, are split and merged by reading).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

from tui.store.telemetry import DeviceColumns, Telemetry
from workloads import protocol, registry
from workloads.facts.missing import finite_or_none
from workloads.facts.warmup import WARMUP_MAX, WARMUP_SHARE, split_warmup
from workloads.rundir.sample_fields import CPU_PCT, POWER_W, TEMPERATURE_C, UTIL_GPU_PCT

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


# the telemetry series, by the names the screen gives them ("util:0", "cpu"), and how each is read from the columns:
# a device's (`DeviceColumns`) or the host's (`Telemetry`), their first ``n`` readings (None: all)
DEVICE_READINGS: dict[str, Callable[[DeviceColumns, int | None], list[Any]]] = {
    "util": lambda cols, n: cols.column(UTIL_GPU_PCT, 0, n),
    "mem": lambda cols, n: cols.used_pct(0, n),          # `tui.store.telemetry.memory_pct` per reading
    "temp": lambda cols, n: cols.column(TEMPERATURE_C, 0, n),
    "power": lambda cols, n: cols.column(POWER_W, 0, n),
}
HOST_READINGS: dict[str, Callable[[Telemetry, int | None], list[Any]]] = {
    "cpu": lambda telemetry, n: telemetry.host_column(CPU_PCT, n),
    "ram": lambda telemetry, n: telemetry.host_used_pct(n),
}


@dataclass(frozen=True)
class DeviceSeries:
    """One line's worth of a device's telemetry: the samples its readings are from (``pos``: ``Telemetry.t[pos[i]]``
    is a reading's time) and per `DEVICE_READINGS` kind a call that gives its values (the readings there were when
    this was built: the screen reads a series when a plot first shows it, and a follower may add more by then)."""

    first: tuple[int, int]   # its first reading's (sample, place in that sample): the order the samples name it
    index: Any               # the index it is shown under: the device's own, else its place in the sample's list
    name: str | None         # its newest name
    pos: Sequence[int]
    readings: dict[str, Callable[[], list[Any]]]

    def xs(self, t: Sequence[float], t0: float, per: float = 1.0) -> list[float]:
        """Its readings' times, from ``t0`` in units of ``per`` seconds."""
        if per == 1.0:
            return [t[p] - t0 for p in self.pos]
        return [(t[p] - t0) / per for p in self.pos]


def host_series(telemetry: Telemetry, n: int | None = None) -> dict[str, Callable[[], list[Any]]]:
    """The host's series over the samples (their first ``n``), per `HOST_READINGS` kind: a call giving its values."""
    return {kind: partial(read, telemetry, n) for kind, read in HOST_READINGS.items()}


def _whole(cols: DeviceColumns, index: Any) -> DeviceSeries:
    """A device's readings as they are now, shown under ``index``."""
    n = len(cols)
    return DeviceSeries((cols.pos[0], cols.place[0]), index, next((x for x in reversed(cols.name) if x), None),
                        list(cols.pos), {kind: partial(read, cols, n) for kind, read in DEVICE_READINGS.items()})


def device_series(telemetry: Telemetry) -> list[DeviceSeries]:
    """One series a device (its bus id, else its index), shown under its first reading's index, in the order the
    devices first came: the report's chart."""
    return [_whole(cols, cols.label_index(0)) for cols in telemetry.devices.values() if len(cols)]


_Row = tuple[int, int, Any, list[Any]]   # a reading: (sample, place in it, name, [its value per kind])


def indexed_device_series(telemetry: Telemetry) -> list[DeviceSeries]:
    """One series a shown index (a device's own, else its place in the list), each in sample order: the screen's
    plots. A device keeps one index (one series, its columns whole); one whose index changed, or two devices shown
    under one index, are split and merged reading by reading."""
    rows: dict[Any, list[_Row]] = {}
    whole: dict[Any, tuple[DeviceColumns, DeviceSeries]] = {}
    for cols in telemetry.devices.values():
        n = len(cols)
        index = cols.index[:n]
        # one index all along (the usual case), counted in C; else each reading's label
        labels = [index[0]] * n if n and index[0] is not None and index.count(index[0]) == n else \
            [cols.label_index(at) for at in range(n)]
        if n and labels.count(labels[0]) == n and labels[0] not in whole and labels[0] not in rows:
            whole[labels[0]] = cols, _whole(cols, labels[0])
            continue
        values = [read(cols, n) for read in DEVICE_READINGS.values()]
        for at, label in enumerate(labels):
            if label in whole:   # a second device under this index: both go reading by reading
                rows.setdefault(label, []).extend(_rows_of(*whole.pop(label)))
            rows.setdefault(label, []).append((cols.pos[at], cols.place[at], cols.name[at],
                                               [column[at] for column in values]))
    return [*(series for _, series in whole.values()), *(_merged(label, found) for label, found in rows.items())]


def _rows_of(cols: DeviceColumns, series: DeviceSeries) -> list[_Row]:
    values = [read() for read in series.readings.values()]
    return [(cols.pos[at], cols.place[at], cols.name[at], [c[at] for c in values]) for at in range(len(series.pos))]


def _merged(index: Any, rows: list[_Row]) -> DeviceSeries:
    """The readings shown under ``index``, in sample order, as one series."""
    rows.sort(key=lambda r: (r[0], r[1]))
    columns = [list(c) for c in zip(*(r[3] for r in rows))]
    return DeviceSeries((rows[0][0], rows[0][1]), index, next((r[2] for r in reversed(rows) if r[2]), None),
                        [r[0] for r in rows], {kind: partial(list, c) for kind, c in zip(DEVICE_READINGS, columns)})
