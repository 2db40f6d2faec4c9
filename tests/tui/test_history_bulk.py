"""Issue 16 item 6: a run read back from disk goes into the plot history column by column, and the
result is the one the point-by-point history gave: the same stored points, pyramid, stride and flags
(compared exactly, float for float), the same series in the same order, the same device names."""

from __future__ import annotations

import math
import random
from array import array
from pathlib import Path
from types import SimpleNamespace

import pytest

import tui.workbench.history as history_module
from tui.workbench.history import History
from tui.workbench.history_series import Series, _finite_point, _Level
from tui.store import RunRecord
from tui.telemetry.sample import Sample
from workloads import protocol, registry


class PointByPoint(Series):
    """The history's series as it was before bulk adding: every point folded, promoted and compacted
    on its own (the reference the fast path must match)."""

    def append(self, x, y):
        point = _finite_point(x, y)  # which points are kept: test_history.py's test of the gaps
        if point is None:
            return
        x, y = point
        if len(self.base) and x < self.base.xs[-1]:
            self.ascending = False
        self.count += 1
        self.version += 1
        self.last = (x, y)
        self._add_one(x, y)
        if self._last_n == self.stride:
            self._promote_one()

    def _add_one(self, x, y):
        base = self.base
        if len(base) and self._last_n < self.stride:
            n = self._last_n
            base.xs[-1] = (base.xs[-1] * n + x) / (n + 1)
            base.ys[-1] = (base.ys[-1] * n + y) / (n + 1)
            base.lo[-1] = min(base.lo[-1], y)
            base.hi[-1] = max(base.hi[-1], y)
            self._last_n = n + 1
            return
        if len(base) >= self.capacity:
            self.base = self.levels.pop(0)
            self._last_n = 2 * self.stride
            self.stride *= 2
            self._add_one(x, y)
            return
        _push(base, x, y, y, y)
        self._last_n = 1

    def _promote_one(self):
        below = self.base
        for k in range(len(self.levels) + 1):
            if len(below) % 2:
                return
            if k == len(self.levels):
                self.levels.append(_Level())
            i = len(below) - 2
            _push(self.levels[k], (below.xs[i] + below.xs[i + 1]) / 2, (below.ys[i] + below.ys[i + 1]) / 2,
                  min(below.lo[i], below.lo[i + 1]), max(below.hi[i], below.hi[i + 1]))
            below = self.levels[k]


def _push(level, x, y, lo, hi):
    level.xs.append(x)
    level.ys.append(y)
    level.lo.append(lo)
    level.hi.append(hi)


def _state(series: Series):
    def cols(level):
        return [array("d", c).tobytes() for c in (level.xs, level.ys, level.lo, level.hi)]  # bit for bit

    return (cols(series.base), [cols(level) for level in series.levels], series.stride, series._last_n,
            series.count, series.version, series.ascending, series.last)


def _unversioned(series: Series):
    state = _state(series)
    return state[:5] + state[6:]


def _points(rng: random.Random, n: int, messy: bool):
    x = 0.0
    for _ in range(n):
        x += rng.choice([1.0, 1.0, 0.5, 3.0]) if not messy or rng.random() > 0.05 else -2.5  # now and then back
        y = rng.gauss(5.0, 2.0)
        if messy:
            y = rng.choice([y, y, y, y, y, y, None, math.nan, math.inf, "n/a", str(y), int(y * 10)])
        yield x, y


@pytest.mark.parametrize("capacity", [4, 6, 8, 17, 1000])
@pytest.mark.parametrize("messy", [False, True])
def test_extend_gives_exactly_what_point_by_point_gave(capacity, messy):
    rng = random.Random(capacity * 2 + messy)
    points = list(_points(rng, 20 * capacity + 13, messy))
    reference = PointByPoint(capacity)
    for x, y in points:
        reference.append(x, y)
    assert reference.stride > 4  # the points went through several compactions
    at_once = Series(capacity)
    at_once.extend([x for x, _ in points], [y for _, y in points])
    one_by_one = Series(capacity)
    for x, y in points:
        one_by_one.append(x, y)
    in_chunks = Series(capacity)
    i = 0
    while i < len(points):
        size = rng.randint(1, 3 * capacity)
        in_chunks.extend([x for x, _ in points[i:i + size]], [y for _, y in points[i:i + size]])
        i += size
    assert _state(at_once) == _state(reference)
    assert _state(one_by_one) == _state(reference)
    assert _state(in_chunks) == _state(reference)


def test_extend_with_nothing_usable_changes_nothing():
    s = Series(8)
    s.extend([1, 2], [3.0, 4.0])
    before = _state(s)
    s.extend([None, 3, 4], [1.0, None, math.nan])
    s.extend([], [])
    assert _state(s) == before


def _device(i: int, **extra):
    return {"index": 0, "name": f"Bench GPU {i // 50}", "util_gpu_pct": 90.0 + i % 7, "mem_used_bytes": 6e10 + i,
            "mem_total_bytes": 8e10, "temperature_c": 60 + i % 11, "power_w": 500.5 + i % 50,
            "throttle_reasons": [], **extra}


def _telemetry() -> list:
    lines = []
    for i in range(300):
        line = {"t": 1000.0 + i, "devices": [_device(i)], "errors": [], "sources": ["nvml"],
                "host": {"hostname": "h", "cpu_pct": 30.0 + i % 20, "mem_used_bytes": 4e10,
                         "mem_total_bytes": 2.56e11, "per_core_pct": [1.0, 2.0]}}
        if i % 3 == 0:  # a second card, without an index (its place in the list stands in) and with processes
            line["devices"].append({"name": "Other", "util_gpu_pct": 10, "processes": [[1, "python", 5]]})
        lines.append(line)
    odd = [{"devices": []},                                         # no time: skipped
           {"t": "1400.5", "devices": [_device(400)]},              # a time as text: from_dict reads it
           {"t": 1401, "devices": None},                            # from_dict raises: skipped
           {"t": 1402, "errors": None},                             # from_dict raises: skipped
           {"t": 1403, "host": None, "devices": [_device(403, util_gpu_pct=None)]},  # an empty host
           {"t": 1404, "devices": [_device(404, processes=[[1, 2]])]},   # a process of two fields: from_dict's
           {"t": 1405, "devices": [_device(405, throttle_reasons=None, index=3)], "host": {}},
           {"t": 1406.0, "devices": [{"index": 0, "mem_used_bytes": 1, "mem_total_bytes": 0}]},
           Sample(t=1407.0)]                                        # an object, as a live history holds
    return lines + odd + [{"t": 1500.0 + i, "devices": [_device(i)]} for i in range(50)]


def _record(steps: int) -> RunRecord:
    events: list = [protocol.Start(t=1.0, workload="resnet50", device="Bench GPU")]
    events += [protocol.Step(t=1.0 + i, step=i, loss=None if i % 97 == 0 else 7.0 / (1 + i / 50),
                             throughput=2400.0 + i % 100, unit=None if i < 3 else "images/s") for i in range(steps)]
    events.append(protocol.End(t=9e3, status="ok", exit_code=0))
    return RunRecord(path=Path("/runs/20260101-000000-resnet50-abcd"), config={}, events=events,
                     telemetry=_telemetry())


def _one_by_one(record: RunRecord, capacity: int) -> History:
    """What the history held before, filled as the workbench fills it live, with point-by-point series."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(history_module, "Series", PointByPoint)
        return _filled_live(record, capacity)


def _filled_live(record: RunRecord, capacity: int) -> History:
    h = History(capacity)
    h.run(record.id, label=record.workload or record.id,
          emits_warmup=registry.spec_for(record.workload).warmup_emits_steps)
    h.see_device(record.id, record.start.device)
    for step in record.steps:
        h.add_step(record.id, step)
    for data in record.telemetry:
        if isinstance(data, dict):
            try:
                data = Sample.from_dict(data)
            except (KeyError, TypeError, ValueError):
                continue
        h.add_sample(data)
    return h


def _history_state(h: History):
    # a live run's first steps are split again as each arrives (`RunSeries.add_step`): its throughput series'
    # versions moved more often than a record's, and are left out here
    return ({key: (run.label, run.unit, run.device, _state(run.loss), _unversioned(run.throughput),
                   _unversioned(run.warmup)) for key, run in h.runs.items()},
            [(name, _state(series)) for name, series in h.telemetry.items()],  # in the same order
            h.device_names, h.t0)


@pytest.mark.parametrize("capacity", [16, 25_000])
def test_a_record_gives_the_history_the_live_workbench_built(capacity):
    record = _record(5000)
    bulk = History(capacity)
    bulk.add_record(record)
    reference = _one_by_one(record, capacity)
    assert isinstance(reference.telemetry["cpu"], PointByPoint)
    assert _history_state(bulk) == _history_state(reference)
    # and it holds what the lines said
    assert list(bulk.telemetry) == ["util:0", "mem:0", "temp:0", "power:0", "util:1", "mem:1", "temp:1", "power:1",
                                    "cpu", "ram", "util:3", "mem:3", "temp:3", "power:3"]
    assert bulk.runs[record.id].unit == "images/s"
    assert bulk.device_names == {0: "Bench GPU 0", 1: "Other", 3: "Bench GPU 8"}
    # of the odd lines only 1404 adds a reading: "1400.5" (a time as text) is not a usable sample (the record
    # holds what load_run would keep), 1403 has none, 1405 is card 3's, 1406 gives memory only; 1404's process
    # list is not the plots' (the device pane's Sample.from_dict checks it)
    assert len(record.telemetry) == 300 + 7 + 50
    assert bulk.telemetry["util:0"].count == 300 + 1 + 50
    assert bulk.telemetry["util:0"].last == (549.0, 90.0 + 49 % 7)


def test_a_sample_object_and_its_line_draw_the_same():
    line = _telemetry()[3]
    from_line, from_object = History(), History()
    from_line.add_record(SimpleNamespace(id="r", workload="w", steps=[], start=None, result=None, telemetry=[line]))
    from_object.add_sample(Sample.from_dict(line))
    assert [(n, _state(s)) for n, s in from_line.telemetry.items()] == \
        [(n, _state(s)) for n, s in from_object.telemetry.items()]


@pytest.mark.parametrize("lines", [
    # one tick without the bus id (its source failed then): the same card under index 0, in time order
    [{"t": 1.0, "devices": [{"index": 0, "bus_id": "A", "util_gpu_pct": 10.0}]},
     {"t": 2.0, "devices": [{"index": 0, "util_gpu_pct": 20.0}]},
     {"t": 3.0, "devices": [{"index": 0, "bus_id": "A", "util_gpu_pct": 30.0}]}],
    # one card renumbered (another visible-devices order), and two cards swapping their indices
    [{"t": 1.0, "devices": [{"index": 0, "bus_id": "A", "util_gpu_pct": 10.0, "name": "a"},
                            {"index": 1, "bus_id": "B", "util_gpu_pct": 90.0, "name": "b"}]},
     {"t": 2.0, "devices": [{"index": 1, "bus_id": "A", "util_gpu_pct": 11.0, "name": "a"},
                            {"index": 0, "bus_id": "B", "util_gpu_pct": 91.0, "name": "b"}]},
     {"t": 3.0, "devices": [{"name": "pci only"}, {"index": 0, "bus_id": "B", "util_gpu_pct": 92.0}]}],
])
def test_cards_shown_under_one_index_keep_their_readings_in_time_order(lines):
    record = RunRecord(path=Path("/runs/r"), config={}, events=[protocol.Start(t=0.0, workload="resnet50",
                                                                               device="cuda:0")], telemetry=lines)
    bulk = History(64)
    bulk.add_record(record)
    assert _history_state(bulk) == _history_state(_one_by_one(record, 64))
    assert list(bulk.telemetry["util:0"].xs) == sorted(bulk.telemetry["util:0"].xs)


def test_a_records_series_take_their_points_when_first_read_and_only_those_it_had():
    """A plot reads a few of a run's series (the utilisation plot: util and memory): the others take their points
    when a plot first reads them, and those are the points the record had when it was added, not the ones a
    follower added to its columns since (those come through add_sample_line, once)."""
    lines = [{"t": float(i), "devices": [{"index": 0, "bus_id": "A", "util_gpu_pct": float(i), "power_w": 100.0 + i}],
              "host": {"cpu_pct": 5.0}} for i in range(10)]
    from tui.store.telemetry import Telemetry

    telemetry = Telemetry.of(lines)
    h = History()
    h.add_record(SimpleNamespace(id="r", workload="w", steps=[], start=None, result=None, telemetry=telemetry))
    assert list(h.telemetry) == ["util:0", "mem:0", "temp:0", "power:0", "cpu", "ram"]
    assert set(h.telemetry.pending) == set(h.telemetry)             # nothing built yet
    assert list(h.telemetry["util:0"].ys) == [float(i) for i in range(10)]
    assert "util:0" not in h.telemetry.pending and "power:0" in h.telemetry.pending
    # the follower: the newer sample to the run's columns and to the plots
    newer = {"t": 10.0, "devices": [{"index": 0, "bus_id": "A", "util_gpu_pct": 10.0, "power_w": 110.0}],
             "host": {"cpu_pct": 6.0}}
    telemetry.add(newer)
    h.add_sample_line(newer)
    assert "power:0" in h.telemetry.pending and "util:0" not in h.telemetry.pending   # a new point builds nothing
    assert list(h.telemetry["power:0"].ys) == [100.0 + i for i in range(11)]
    assert list(h.telemetry["cpu"].ys) == [5.0] * 10 + [6.0]
    assert list(h.telemetry["util:0"].xs) == [float(i) for i in range(11)]
    assert set(h.telemetry.pending) == {"mem:0", "temp:0", "ram"}
    assert [name for name, series in h.telemetry.items() if series.count] == ["util:0", "power:0", "cpu"]
    assert not h.telemetry.pending
    h.drop_telemetry()
    assert not h.telemetry and not h.telemetry.pending


def test_points_for_a_series_nobody_reads_are_bounded_and_kept_in_order(monkeypatch):
    """A followed run sends a sample a second; the host's memory series is in no plot: its points wait in one list
    after the record's, and past TAIL_POINTS the series is built (before: a list entry per sample, forever)."""
    import tui.workbench.history as history_module

    monkeypatch.setattr(history_module._SeriesByName, "TAIL_POINTS", 50)
    lines = [{"t": float(i), "devices": [{"index": 0, "bus_id": "A", "util_gpu_pct": float(i)}],
              "host": {"cpu_pct": 5.0, "mem_used_bytes": i, "mem_total_bytes": 100}} for i in range(10)]
    from tui.store.telemetry import Telemetry

    h = History()
    h.add_record(SimpleNamespace(id="r", workload="w", steps=[], start=None, result=None, telemetry=Telemetry.of(lines)))
    for i in range(10, 40):
        h.add_sample_line({"t": float(i), "devices": [{"index": 0, "util_gpu_pct": float(i)}],
                           "host": {"cpu_pct": 5.0, "mem_used_bytes": i, "mem_total_bytes": 100}})
    assert len(h.telemetry.pending["ram"]) == 2                 # the record's, then one list of what followed
    for i in range(40, 80):
        h.add_sample_line({"t": float(i), "devices": [{"index": 0, "util_gpu_pct": float(i)}],
                           "host": {"cpu_pct": 5.0, "mem_used_bytes": i, "mem_total_bytes": 100}})
    assert "ram" not in h.telemetry.pending                     # built once 50 had come
    assert list(h.telemetry["ram"].ys) == [float(i) for i in range(80)]
    assert list(h.telemetry["util:0"].xs) == [float(i) for i in range(80)]
    # a copy and a pop give whole series, not the empty ones still waiting for a record's points
    fresh = History()
    fresh.add_record(SimpleNamespace(id="r", workload="w", steps=[], start=None, result=None, telemetry=Telemetry.of(lines)))
    assert fresh.telemetry.copy()["cpu"].count == 10
    assert fresh.telemetry.pop("util:0").count == 10 and "util:0" not in fresh.telemetry
