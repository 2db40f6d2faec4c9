"""Bounded plot history and downsampling (UI-free), and the 24-hour redraw bound."""

from __future__ import annotations

import math
import time

import pytest

from app_fakes import fake_sample
from tui.workbench.history import History
from tui.workbench.history_series import DrawCache, Series, downsample
from tui.workbench.plot_lines import Line, loss_lines, thermal_lines, throughput_lines, time_axis, time_scale, util_lines
from workloads import protocol


def test_series_skips_missing_values_instead_of_zeroing_them():
    s = Series()
    s.append(1, 2.0)
    s.append(2, None)
    s.append(3, float("nan"))
    s.append(None, 1.0)
    s.append(4, "n/a")
    s.append(5, 4.0)
    assert list(s.xs) == [1.0, 5.0] and list(s.ys) == [2.0, 4.0]
    assert s.count == 2 and s.last == (5.0, 4.0)


def test_series_stays_bounded_and_covers_the_whole_run():
    s = Series(capacity=1000)
    n = 1_000_003
    s.extend(range(n), [2.0 * i for i in range(n)])  # what a million appends give (tests/tui/test_history_bulk.py)
    assert len(s) <= 1000
    assert s.count == n
    # the first and last stored points still stand for the start and the end of the run
    assert s.xs[0] < 2 * s.stride and s.xs[-1] > n - 2 * s.stride
    # merging is by mean, so a linear series stays on its line
    for x, y in zip(s.xs, s.ys):
        assert y == pytest.approx(2.0 * x)


def test_compaction_keeps_the_mean_of_a_partly_filled_last_point():
    s = Series(capacity=4)
    values = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]
    for i, v in enumerate(values):
        s.append(i, v)
    assert s.stride == 2
    # weighted by how many raw points each stored point holds
    total = sum(y * n for y, n in zip(s.ys, [2] * (len(s) - 1) + [s._last_n]))
    assert total == pytest.approx(sum(values))


def test_downsample_gives_width_buckets_with_min_mean_max():
    s = Series()
    for i in range(1024):
        s.append(i, float(i % 8))
    drawn = downsample(s, 50)
    assert len(drawn.xs) == 50
    assert all(lo == 0.0 and hi == 7.0 for lo, hi in zip(drawn.lows, drawn.highs))
    assert all(m == pytest.approx(3.5) for m in drawn.ys)
    assert drawn.xs == sorted(drawn.xs) and drawn.xs[0] < 20 and drawn.xs[-1] > 980


def test_downsample_returns_short_series_as_they_are():
    s = Series()
    for i in range(5):
        s.append(i, i * i)
    assert downsample(s, 100).ys == [0.0, 1.0, 4.0, 9.0, 16.0]


def test_downsample_buckets_by_x_so_a_gap_stays_a_gap():
    s = Series()
    for i in range(100):
        s.append(i, 1.0)
    for i in range(900, 1000):  # nothing between 100 and 900
        s.append(i, 2.0)
    drawn = downsample(s, 10)
    # at most the one pyramid block that straddles the gap lands in it
    inside = [x for x in drawn.xs if 110 < x < 890]
    assert len(inside) <= 1 and len(drawn.xs) <= 3
    assert drawn.ys[0] == 1.0 and drawn.ys[-1] == 2.0


def test_downsample_matches_exact_bucketing_on_a_long_series():
    s = Series(capacity=1000)
    n = 100_000
    for i in range(n):
        s.append(i, math.sin(i / 5000))
    drawn = downsample(s, 100)
    assert 95 <= len(drawn.xs) <= 100
    for x, y, lo, hi in zip(*drawn):
        assert lo - 1e-9 <= y <= hi + 1e-9
        assert y == pytest.approx(math.sin(x / 5000), abs=0.02)  # a bucket's mean sits on the curve
    assert min(drawn.lows) == pytest.approx(-1, abs=1e-3) and max(drawn.highs) == pytest.approx(1, abs=1e-3)
    assert drawn.xs[0] < 1000 and drawn.xs[-1] > n - 1000


def test_downsample_survives_x_going_backwards():
    s = Series()
    for x in [5, 4, 3, 2, 1] * 100:
        s.append(x, x)
    assert len(downsample(s, 10).xs) == 10


def test_draw_cache_reuses_until_new_data():
    s = Series()
    for i in range(500):
        s.append(i, i)
    cache = DrawCache()
    first = cache.get(s, 40)
    assert cache.get(s, 40) is first
    s.append(500, 1)
    assert cache.get(s, 40) is not first
    assert cache.get(s, 41) is not first


def test_a_day_of_1hz_samples_downsamples_well_under_100ms():
    s = Series()
    for i in range(86_400):
        s.append(i, 50 + 40 * math.sin(i / 600))
    best = min(_timed(lambda: downsample(s, 110)) for _ in range(3))
    # O(width) thanks to the pyramid: about 0.3 ms here; the bound leaves room for a loaded CI machine
    assert best < 0.02, f"downsampling 86,400 points took {best * 1000:.1f} ms (bound 20 ms)"


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def test_history_from_steps_and_samples():
    h = History()
    h.add_step("run1", protocol.Step(step=1, loss=2.0, throughput=10.0, unit="images/s"))
    h.add_step("run1", protocol.Step(step=2, loss=None, throughput=12.0, unit="images/s"))
    run = h.runs["run1"]
    assert run.unit == "images/s"
    assert list(run.loss.xs) == [1.0] and list(run.throughput.ys) == [10.0, 12.0]
    for i in range(3):
        h.add_sample(fake_sample(i))
    assert h.device_indices() == [0]
    assert list(h.telemetry["util:0"].xs) == [0.0, 1.0, 2.0]
    assert h.telemetry["mem:0"].ys[0] == pytest.approx(25.0)  # 20 of 80 GiB
    assert h.device_names[0].startswith("NVIDIA")


def test_history_leaves_missing_device_readings_out():
    from tui.telemetry.sample import DeviceSample, Sample

    h = History()
    h.add_sample(Sample(t=10.0, devices=(DeviceSample(index=0, util_gpu_pct=None, mem_used_bytes=5),)))
    assert len(h.telemetry["util:0"]) == 0 and len(h.telemetry["mem:0"]) == 0


def test_plot_lines_are_read_from_the_history_without_a_screen():
    h = History()
    for key, label in (("r1", "resnet50"), ("g1", "generate"), ("r2", "resnet50")):
        h.run(key, label=label)
    h.add_step("r1", protocol.Step(step=1, loss=2.0, throughput=10.0, unit="images/s"))
    h.add_step("g1", protocol.Step(step=1, loss=3.0, throughput=50.0, unit="tokens/s"))
    h.add_step("r2", protocol.Step(step=1, loss=None, throughput=9.0, unit="images/s"))
    for i in range(3):
        h.add_sample(fake_sample(i, devices=2))
    # a step plot shows the newest run's workload (with points in it): its runs share the x axis and the unit
    assert [line.label for line in loss_lines(h)] == ["generate loss"]
    assert [(line.label, line.side, line.series) for line in throughput_lines(h)] == [
        ("resnet50 images/s", "left", h.runs["r1"].throughput), ("resnet50 images/s", "left", h.runs["r2"].throughput)]
    assert [line.label for line in util_lines(h)] == ["GPU0 util %", "GPU0 mem %", "GPU1 util %", "GPU1 mem %",
                                                      "host cpu %"]
    assert [(line.label, line.side) for line in thermal_lines(h)] == [
        ("GPU0 °C", "left"), ("GPU0 W", "right"), ("GPU1 °C", "left"), ("GPU1 W", "right")]
    assert util_lines(h)[0].series is h.telemetry["util:0"]


def test_a_run_on_the_cpu_draws_no_card_lines():
    """Two idle cards listed while ResNet-50 trains on the CPU: their lines are not the run's data."""
    from pathlib import Path

    from tui.store import RunRecord

    h = History()
    h.run("r1", label="resnet50")
    for i in range(3):
        h.add_sample(fake_sample(i, devices=2))
    assert not h.cards_unused  # before the start event: where the run is is not known yet
    h.see_device("r1", "cpu (x86_64, 16 threads)")
    assert h.cards_unused
    assert [line.label for line in util_lines(h)] == ["host cpu % (the run)"]
    assert thermal_lines(h) == []
    h.drop_runs()  # the next run, on a card: the cards are its data again
    h.see_device("r2", "cuda:0 (NVIDIA H100 80GB HBM3)")
    assert not h.cards_unused and len(thermal_lines(h)) == 4
    # a run read back from disk knows where it ran from its start event
    record = RunRecord(path=Path("runs/20260101-000000-resnet50-0001"), config={"workload": "resnet50"},
                       events=[protocol.Start(workload="resnet50", device="cpu")],
                       telemetry=[fake_sample(i, devices=2).to_dict() for i in range(2)])
    loaded = History()
    loaded.add_record(record)
    assert loaded.cards_unused and thermal_lines(loaded) == []
    assert [line.label for line in util_lines(loaded)] == ["host cpu % (the run)"]


def test_the_time_axis_reads_in_seconds_minutes_or_hours_over_the_lines_span():
    early, late = Series(), Series()
    early.append(100.0, 1.0)
    late.append(200.0, 1.0)
    late.append(100.0 + 3 * 3600, 1.0)
    assert time_axis([Line("a", early)]) == (1.0, "s")
    assert time_axis([Line("a", early), Line("b", late)]) == (3600.0, "h")
    assert time_scale(119) == (1.0, "s") and time_scale(120) == (60.0, "min") and time_scale(7200) == (3600.0, "h")
