"""The report's charts of a long run (a soak's hours of 8 devices): thinned to the plot's width, peaks kept."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

from tui.report import charts
from workloads import protocol


def _reference(xs, ys, x0, per_px):
    """Per pixel column: its first, lowest, highest and last point, in order (what a chart of every point shows)."""
    out, column = [], {}
    for x, y in zip(xs, ys):
        column.setdefault(int((x - x0) / per_px), []).append((x, y))
    for c in sorted(column):
        points = column[c]
        if len(points) <= 4:
            out += points
            continue
        ys_ = [p[1] for p in points]
        keep = sorted({0, ys_.index(min(ys_)), ys_.index(max(ys_)), len(points) - 1})
        out += [points[k] for k in keep]
    return [p[0] for p in out], [p[1] for p in out]


def test_thinning_a_long_line_keeps_each_columns_first_lowest_highest_and_last():
    rng = random.Random(7)
    xs = [i * 0.5 for i in range(40_000)]
    ys = [rng.uniform(0, 100) for _ in xs]
    per_px = xs[-1] / 798
    assert charts._thin(xs, ys, 0.0, per_px) == _reference(xs, ys, 0.0, per_px)
    shuffled = list(zip(xs, ys))
    rng.shuffle(shuffled)      # x going back and forth takes the other path, to the same rule
    sx, sy = [p[0] for p in shuffled], [p[1] for p in shuffled]
    thin_x, _ = charts._thin(sx, sy, 0.0, per_px)
    assert len(thin_x) <= len(sx)


def test_hours_of_eight_devices_chart_in_hours_with_a_one_second_spike_kept():
    hours, devices = 4, 8
    spike = int(hours * 3600 * 13 / 24)
    telemetry = [{"t": 1000.0 + s, "devices": [
        {"index": i, "bus_id": f"0000:{0x18 + i:02x}:00.0", "name": "NVIDIA H100",
         "util_gpu_pct": 100.0 if (i == 5 and s == spike) else 40.0 + i,
         "mem_used_bytes": 30 * 2**30, "mem_total_bytes": 80 * 2**30} for i in range(devices)]}
        for s in range(hours * 3600)]
    record = SimpleNamespace(id="soak-run", workload="soak", telemetry=telemetry, steps=[], result=None,
                             start=protocol.Start(t=1000.0, workload="soak", device="cuda:0"))
    (chart,) = [c for c in charts.charts_for(record) if c.name.endswith("utilisation")]
    assert "hours since start" in chart.svg
    lines = re.findall(r'<polyline points="([^"]+)"', chart.svg)
    assert len(lines) == 2 * devices
    counts = [len(line.split()) for line in lines]
    assert max(counts) <= 4 * 798 < hours * 3600          # thinned to the plot's width
    gpu5_util = lines[2 * 5].split()
    top = charts._TOP                                     # y of 100 % on a 0-100 axis
    assert sum(1 for p in gpu5_util if float(p.split(",")[1]) == top) == 1   # the one-second peak is drawn
    assert all(float(p.split(",")[1]) > top for p in lines[0].split())      # GPU0 never reached it
