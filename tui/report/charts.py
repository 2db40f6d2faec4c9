"""Line charts as SVG (no plotting library), rendered to PNG by ``png.svg_to_png``.

A gap in a series (a None, or anything that is not a finite number) breaks its
line instead of being drawn as a zero. A series longer than the plot is wide is
drawn through each pixel column's first, lowest, highest and last point: the
same picture as every point (a long run has hundreds of thousands of steps),
for a file and a rendering time bounded by the width.
"""

from __future__ import annotations

import math
import operator
from bisect import bisect_left
from dataclasses import dataclass
from typing import Sequence
from xml.sax.saxutils import escape

from tui.cpu_trap import is_cpu
from workloads.facts.formatting import device_label, device_tag
from tui.store.series import WARMUP_LABEL, StepPoints, device_series, host_series, record_step_points
from tui.store.telemetry import Telemetry
from workloads.facts.missing import is_finite
from workloads.catalogue import Message

WIDTH, HEIGHT = 900, 380
_LEFT, _RIGHT, _TOP, _BOTTOM = 78, 24, 46, 56
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@dataclass
class Series:
    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    color: str | None = None


def _runs(s: Series) -> list[tuple[list[float], list[float]]]:
    """The series' finite points as (xs, ys) runs, split where one is missing."""
    xs, ys = list(s.xs), list(s.ys)
    n = min(len(xs), len(ys))
    del xs[n:], ys[n:]
    try:
        # the common case at C speed: every value a number (no None, no bool) and their sums finite,
        # which no infinity or NaN leaves them (fsum raises on an overflow or inf - inf)
        if ({*map(type, xs), *map(type, ys)} <= {int, float}
                and math.isfinite(math.fsum(xs)) and math.isfinite(math.fsum(ys))):
            return [(xs, ys)] if n else []
    except (OverflowError, ValueError):
        pass
    runs: list[tuple[list[float], list[float]]] = [([], [])]
    for x, y in zip(xs, ys):
        if is_finite(x) and is_finite(y):
            runs[-1][0].append(x)
            runs[-1][1].append(y)
        elif runs[-1][0]:
            runs.append(([], []))
    return [run for run in runs if run[0]]


def _thin(xs: list[float], ys: list[float], x0: float, per_px: float) -> tuple[list[float], list[float]]:
    """Per pixel column (``per_px`` x units wide from ``x0``) of consecutive points: the first, lowest,
    highest and last, in their order."""
    n = len(xs)
    if n <= 4 * (WIDTH - _LEFT - _RIGHT):
        return xs, ys
    if all(map(operator.le, xs, xs[1:])):   # at C speed: 16 lines of 86,400 points a day
        # x never goes back (time, steps): each column's points are one slice, found by bisection, and min()
        # and max() run over it at C speed; a day of 1 Hz samples is 86,400 points a line
        first = int((xs[0] - x0) / per_px)
        last = int((xs[-1] - x0) / per_px)
        edges = [0] + [bisect_left(xs, x0 + c * per_px) for c in range(first + 1, last + 1)] + [n]
        return _thin_groups(xs, ys, zip(edges, edges[1:]))
    columns = [int((x - x0) / per_px) for x in xs]
    groups = []
    start = 0
    for i in range(1, n + 1):
        if i < n and columns[i] == columns[start]:
            continue
        groups.append((start, i))
        start = i
    return _thin_groups(xs, ys, groups)


def _thin_groups(xs: list[float], ys: list[float], groups) -> tuple[list[float], list[float]]:
    out_x: list[float] = []
    out_y: list[float] = []
    for start, stop in groups:
        if stop - start <= 4:
            out_x += xs[start:stop]
            out_y += ys[start:stop]
        elif stop > start:
            group = ys[start:stop]
            for k in sorted({0, group.index(min(group)), group.index(max(group)), stop - start - 1}):
                out_x.append(xs[start + k])
                out_y.append(group[k])
    return out_x, out_y


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / max(ticks, 1)
    if raw <= 0 or not math.isfinite(raw):
        return 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * magnitude:
            return m * magnitude
    return 10 * magnitude


def _ticks(lo: float, hi: float, whole: bool = False) -> list[float]:
    """Round values between lo and hi; ``whole``: whole numbers only (steps are counted: no step 2.5)."""
    step = _nice_step(hi - lo)
    if whole and step != int(step):
        step = max(1.0, float(math.floor(step)))
    start = math.ceil(lo / step) * step
    out = []
    v = start
    while v <= hi + step * 1e-9 and len(out) < 12:
        out.append(v)
        v += step
    return out


def _label(v: float) -> str:
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:.3g}G"
    if a >= 1e6:
        return f"{v / 1e6:.3g}M"
    if a >= 1e4:
        return f"{v / 1e3:.3g}k"
    if a == 0 or a >= 1:
        return f"{v:.4g}"
    return f"{v:.3g}"


def _bounds(values: list[float], fixed: tuple[float, float] | None) -> tuple[float, float]:
    if fixed is not None:
        return fixed
    lo, hi = min(values), max(values)
    if hi == lo:
        pad = abs(hi) * 0.1 or 1.0
        return lo - pad, hi + pad
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def line_chart(title: str, series: Sequence[Series], *, x_label: str, y_label: str,
               y_range: tuple[float, float] | None = None, x_whole: bool = False) -> str | None:
    """An SVG line chart; None when no series has a single finite point. ``x_whole``: the x axis counts (steps)."""
    runs_of = [_runs(s) for s in series]
    if not any(runs_of):
        return None
    lows = [min(xs) for runs in runs_of for xs, _ in runs]
    x0, x1 = _bounds([*lows, *(max(xs) for runs in runs_of for xs, _ in runs)], None)
    if min(lows) >= 0:
        x0 = max(x0, 0.0) if min(lows) - x0 < (x1 - x0) * 0.2 else x0
    y0, y1 = _bounds([v for runs in runs_of for _, ys in runs for v in (min(ys), max(ys))], y_range)
    pw, ph = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def sx(x: float) -> float:
        return _LEFT + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        return _TOP + ph - (y - y0) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="monospace">',
           f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
           f'<text x="{WIDTH / 2}" y="26" font-size="17" text-anchor="middle" fill="#222">{escape(title)}</text>']
    for v in _ticks(y0, y1):
        y = sy(v)
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{WIDTH - _RIGHT}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" font-size="12" text-anchor="end" fill="#444">'
                   f'{escape(_label(v))}</text>')
    for v in _ticks(x0, x1, whole=x_whole):
        x = sx(v)
        out.append(f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_TOP + ph}" stroke="#f0f0f0"/>')
        out.append(f'<text x="{x:.1f}" y="{_TOP + ph + 18}" font-size="12" text-anchor="middle" fill="#444">'
                   f'{escape(_label(v))}</text>')
    out.append(f'<rect x="{_LEFT}" y="{_TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{_LEFT + pw / 2}" y="{HEIGHT - 12}" font-size="13" text-anchor="middle" fill="#222">'
               f'{escape(x_label)}</text>')
    out.append(f'<text x="16" y="{_TOP + ph / 2}" font-size="13" text-anchor="middle" fill="#222" '
               f'transform="rotate(-90 16 {_TOP + ph / 2})">{escape(y_label)}</text>')
    # the legend, top right inside the plot, on a white box (as matplotlib's): wide enough for its longest
    # label at 12 px monospace (about 7.3 px a character), so no label runs past the plot's edge
    chars = max(len(s.label) for s in series)
    lx = WIDTH - _RIGHT - 8 - (34 + 7.3 * chars)
    out.append(f'<rect x="{lx - 6:.1f}" y="{_TOP + 4}" width="{34 + 7.3 * chars + 8:.1f}" '
               f'height="{18 * len(series) + 6}" fill="#ffffff" fill-opacity="0.85" stroke="#cccccc"/>')
    legend: list[str] = []
    for i, (s, runs) in enumerate(zip(series, runs_of)):
        color = s.color or COLORS[i % len(COLORS)]
        for xs, ys in runs:
            run = [(sx(x), sy(min(max(y, y0), y1))) for x, y in zip(*_thin(xs, ys, x0, (x1 - x0) / pw))]
            if len(run) == 1:
                out.append(f'<circle cx="{run[0][0]:.1f}" cy="{run[0][1]:.1f}" r="3.5" fill="{color}"/>')
            elif run:
                pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
                out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2" '
                           f'stroke-linejoin="round"/>')
        ly = _TOP + 20 + 18 * i
        legend.append(f'<line x1="{lx:.1f}" y1="{ly - 4}" x2="{lx + 24:.1f}" y2="{ly - 4}" '
                      f'stroke="{color}" stroke-width="3"/>')
        legend.append(f'<text x="{lx + 30:.1f}" y="{ly}" font-size="12" fill="#222">{escape(s.label)}</text>')
    out += legend   # drawn over the lines
    out.append("</svg>")
    return "\n".join(out)


@dataclass
class Chart:
    name: str      # file stem, e.g. "<run id>-loss"
    title: str     # one of TITLES' English; the report says it in its own language (`caption`)
    svg: str


# what each chart shows, as the report names it (its alt text). The picture's own words stay English: the
# monospace font it is drawn with may have no Chinese glyphs, and boxes would say nothing
TITLES = {"loss": Message("report.chart.loss"), "throughput": Message("report.chart.throughput"),
          "utilisation": Message("report.chart.utilisation")}


def caption(title: str, lang: str) -> str:
    """A chart's title in the report's language; a title this module does not know, as it is."""
    found = next((t for t in TITLES.values() if title in (t.en, t.zh)), None)
    return found(lang) if found is not None else title


WARMUP_GREY = "#9a9a9a"   # the screen's warm-up line is this grey too (`tui.workbench.panes.series_plot`)


def throughput_series(record, unit: str, points: StepPoints | None = None) -> list[Series]:
    """The steps the median counts, and apart, in grey, the warm-up steps it leaves out: the screen's split
    (`tui.store.series`, the summary's rule)."""
    points = points or record_step_points(record)
    series = [Series(unit, points.rated, points.throughput)]
    if points.skipped:
        series.append(Series(WARMUP_LABEL, points.rated, points.warmup, WARMUP_GREY))
    return series


def charts_for(record) -> list[Chart]:
    """Loss, throughput, and utilisation + memory over time, for one run (those with data)."""
    from tui.report.summary import throughput_unit
    from workloads import registry

    out: list[Chart] = []
    points = record_step_points(record)   # the same series the screen draws (`tui.store.series`)
    label = record.workload or "run"
    # the x axis counts what the workload's steps count, as the screen's plots say it: "timed token" for a generation
    count = registry.spec_for(record.workload).progress.en
    loss = line_chart(f"{label}: loss per {count}", [Series("loss", points.steps, points.loss)],
                      x_label=count, y_label="loss", x_whole=True)
    if loss:
        out.append(Chart(f"{record.id}-loss", TITLES["loss"].en, loss))
    unit = throughput_unit(record) or "items/s"
    tput = line_chart(f"{label}: throughput per {count}", throughput_series(record, unit, points),
                      x_label=count, y_label=unit, x_whole=True)
    if tput:
        out.append(Chart(f"{record.id}-throughput", TITLES["throughput"].en, tput))
    util = _utilisation_chart(record, label)
    if util:
        out.append(Chart(f"{record.id}-utilisation", TITLES["utilisation"].en, util))
    return out


def _utilisation_chart(record, label: str) -> str | None:
    drawn = utilisation_series(record, label)
    if drawn is None:
        return None
    title, unit, lines = drawn
    return line_chart(title, lines, x_label=f"{unit} since start", y_label="%", y_range=(0.0, 100.0))


def utilisation_series(record, label: str) -> tuple[str, str, list[Series]] | None:
    """The utilisation chart's title, time unit and lines: each device's utilisation and memory % (the series the
    screen's plots draw too: `tui.store.series`), else the host's CPU and memory %; None without telemetry."""
    telemetry = Telemetry.of(record.telemetry)   # columns (a record built in memory may hold sample dicts)
    t = telemetry.t
    if not t:
        return None
    t0, t_end = min(t), max(t)
    start = record.start
    if start is not None and is_finite(start.t) and start.t <= t0:
        t0 = start.t
    # a soak's day reads in hours (86.4k seconds says nothing at a glance)
    unit, per = ("hours", 3600.0) if t_end - t0 >= 2 * 3600 else ("seconds", 1.0)
    in_order = telemetry.in_time_order()   # written in order, unless the clock stepped

    def series(name: str, xs: list[float], ys: list) -> Series:
        if not in_order:
            xs, ys = (list(c) for c in zip(*sorted(zip(xs, ys), key=lambda p: p[0]))) if xs else ([], [])
        return Series(name, xs, ys)

    out: list[Series] = []
    devices = telemetry.devices
    on_cpu = start is not None and is_cpu(start.device)  # the cards sat idle: their lines are not this run's
    if devices and not on_cpu:
        for device in device_series(telemetry):
            xs = device.xs(t, t0, per)
            tag = device_tag(device.index) if len(devices) > 1 else ""
            out.append(series(f"util % {tag}".strip(), xs, device.readings["util"]()))
            out.append(series(f"memory % {tag}".strip(), xs, device.readings["mem"]()))
        cols = next(iter(devices.values()))
        one = f" ({device_label(cols.label_index(0), cols.name[0], cols.pci_vendor)})"
        title = f"{label}: device utilisation and memory" + (one if len(devices) == 1 else "")
    else:
        xs = [(v - t0) / per for v in t]
        host = host_series(telemetry)
        out.append(series("host CPU %", xs, host["cpu"]()))
        out.append(series("host memory %", xs, host["ram"]()))
        title = f"{label}: host CPU and memory (" + _host_only_why(on_cpu, listed=bool(devices)) + ")"
    return title, unit, out


def _host_only_why(on_cpu: bool, listed: bool) -> str:
    """Why the chart shows the host alone; "not used" only where cards were listed to be unused."""
    if on_cpu:
        return "ran on the CPU; the listed cards were not used" if listed else "ran on the CPU; no card listed"
    return "no accelerator telemetry"
