"""What each workbench plot draws, as UI-free functions of the `History` (no Textual, no plotext).

The plots pane (`tui.workbench.panes.plots`) names the plots and the plot widget
(`tui.workbench.panes.series_plot`) draws whatever lines it is handed; both read them from
here, so neither pane imports the other and the lines can be tested without a screen.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass
from typing import Callable, Sequence

from workloads.facts.formatting import device_tag
from tui.store.series import WARMUP_LABEL
from tui.workbench.history import History, RunSeries
from tui.workbench.history_series import Series
from workloads import registry

__all__ = ["Axis", "CARDS_UNUSED", "Line", "canvas_row", "line_styles", "loss_lines", "thermal_lines",
           "throughput_lines", "time_axis", "time_scale", "util_lines", "x_ticks", "y_axis"]

# what the card plots say instead of lines while the runs shown are on the CPU
CARDS_UNUSED = "cards unused (CPU run)"


@dataclass(frozen=True)
class Line:
    label: str
    series: Series
    side: str = "left"   # "right": the second unit of the plot
    x_unit: str = ""     # what a step counts, for a step plot's x axis ("steps", "timed tokens"); "" the plot's own
    warmup: bool = False  # the warm-up steps the median leaves out: drawn grey, as the report's chart draws them


def time_scale(span_s: float) -> tuple[float, str]:
    """Seconds per tick unit and its name, so a long run reads in minutes or hours, not in 86400 s."""
    if span_s >= 2 * 3600:
        return 3600.0, "h"
    if span_s >= 120:
        return 60.0, "min"
    return 1.0, "s"


def time_axis(lines: Sequence[Line]) -> tuple[float, str]:
    """The time scale for these lines (each with at least one point): over the span they cover together."""
    span = max(line.series.xs[-1] for line in lines) - min(line.series.xs[0] for line in lines)
    return time_scale(span)


def _one_workload(history: History, series: Callable[[RunSeries], Series]) -> list[RunSeries]:
    """The runs of the newest run's workload (and unit) that have points in ``series``.

    Steps of different workloads share no x axis (12 training steps beside 256 tokens are a bar at x=1)
    and their units no y axis: a step plot shows one workload, the newest, as the launcher does.
    """
    runs = [run for run in history.runs.values() if len(series(run))]
    if not runs:
        return []
    newest = runs[-1]
    return [run for run in runs if run.label == newest.label and run.unit == newest.unit]


def _counts(workload: str) -> str:
    """What one step of ``workload`` counts, plural, as its progress line names it ('timed tokens')."""
    return f"{registry.spec_for(workload).progress.en}s"


def loss_lines(history: History) -> list[Line]:
    return [Line(f"{run.label} loss", run.loss, x_unit=_counts(run.label))
            for run in _one_workload(history, lambda run: run.loss)]


def throughput_lines(history: History) -> list[Line]:
    """One line per run of one workload, so one unit on one axis; and apart, grey, its warm-up steps (the steps
    the median leaves out, split by `tui.store.series` as the report's chart splits them)."""
    out: list[Line] = []
    for run in _one_workload(history, lambda run: _rated(run)):
        out.append(Line(f"{run.label} {run.unit or 'items/s'}", run.throughput, x_unit=_counts(run.label)))
        if len(run.warmup):
            out.append(Line(WARMUP_LABEL, run.warmup, x_unit=_counts(run.label), warmup=True))
    return out


def _rated(run: RunSeries) -> Series:
    """The run's throughput series that has points (the median's steps, else the warm-up's alone)."""
    return run.throughput if len(run.throughput) else run.warmup


def util_lines(history: History) -> list[Line]:
    """Each card's utilisation and memory, and the host's CPU; only the host while the runs are on the CPU.

    An idle card's flat line drawn during a CPU run reads as the run's data: it is
    left out (the device pane still shows the cards, marked as not used).
    """
    out: list[Line] = []
    on_cpu = history.cards_unused
    for index in [] if on_cpu else history.device_indices():
        out.append(Line(f"{device_tag(index)} util %", history.telemetry[f"util:{index}"]))
        out.append(Line(f"{device_tag(index)} mem %", history.telemetry[f"mem:{index}"]))
    if "cpu" in history.telemetry:
        out.append(Line("host cpu % (the run)" if on_cpu else "host cpu %", history.telemetry["cpu"]))
    return out


def thermal_lines(history: History) -> list[Line]:
    """Each card's temperature and power; none while the runs are on the CPU (the cards did not work)."""
    out: list[Line] = []
    if history.cards_unused:
        return out
    for index in history.device_indices():
        out.append(Line(f"{device_tag(index)} °C", history.telemetry[f"temp:{index}"]))
        out.append(Line(f"{device_tag(index)} W", history.telemetry[f"power:{index}"], "right"))
    return out


# y axes --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Axis:
    """A y axis for ``rows`` canvas rows: its limits and the ticks, each on a row of its own."""

    lo: float
    hi: float
    ticks: tuple[float, ...]
    labels: tuple[str, ...]


def canvas_row(value: float, lo: float, hi: float, rows: int) -> int:
    """The canvas row (0 = bottom) that plotext 5.3.2 draws ``value`` on, for ticks and data alike.

    Its ``get_matrix_data``: a marker with ``k`` dots per row maps into ``rows * k`` sub-rows and lands
    in row ``sub_row // k``; for a value on a row's centre that is this same row.
    """
    return math.floor(round(0.5 + (rows - 1) * (value - lo) / (hi - lo), 8))


_NICE = (1.0, 2.0, 2.5, 5.0)


def _decimals(values: Sequence[float]) -> int:
    for digits in range(7):
        if all(abs(round(v, digits) - v) <= 1e-9 * max(1.0, abs(v)) for v in values):
            return digits
    return 7


# the least span of a y axis, as a share of its largest value's magnitude
FLAT_SPAN = 0.05


def y_axis(lo: float, hi: float, rows: int) -> Axis:
    """Limits and round-number ticks for data from ``lo`` to ``hi`` on a canvas of ``rows`` rows.

    plotext spreads its own ticks evenly over the limits and maps each to a row by rounding down, so
    two can land on one row and one label is overwritten (0..100 on 7 rows lost its 50, and a reading
    of 24 sat on the row labelled 16.7). Here each tick is ``lo + k * step`` on row ``k * gap`` exactly:
    the top limit is chosen as ``lo + (rows - 1) * step / gap``, so every row is worth ``step / gap`` and
    a tick's label is the value a point on its row has. Among the round steps and gaps that hold the
    data, the one wasting the least height wins, with a small preference for a few more ticks.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 1.0
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:   # a flat line: a unit around it, so it is drawn mid-plot and labelled
        pad = abs(lo) * 0.5 or 1.0
        lo, hi = lo - pad, hi + pad
    least = FLAT_SPAN * max(abs(lo), abs(hi))
    if hi - lo < least:
        # a rate that wanders by 0.5 % (1.990-2.000) drawn over the whole height reads as a ramp: the axis spans
        # at least FLAT_SPAN of the values, so what is flat looks flat; a range of positive data stays positive
        positive, mid = lo >= 0, (lo + hi) / 2
        lo, hi = mid - least / 2, mid + least / 2
        if positive and lo < 0:
            lo, hi = 0.0, hi - lo
    if rows < 2:
        return Axis(lo, hi, (), ())
    span = hi - lo
    min_gap = 2 if rows > 8 else 1           # labels on every row of a tall plot read as a wall of numbers
    want = max(2, min(5, rows // 4 + 1))     # ticks worth having at this height (more is clutter)
    best: tuple[float, Axis] | None = None
    top_exponent = math.floor(math.log10(span)) + 1
    for exponent in range(top_exponent - int(math.log10(rows)) - 2, top_exponent + 1):
        for nice in _NICE:
            step = nice * 10.0 ** exponent
            low = _tidy(math.floor(lo / step) * step)
            for gap in range(min_gap, rows):
                high = low + (rows - 1) * step / gap
                if high < hi - 1e-9 * span:
                    break   # a wider gap only lowers the top
                count = (rows - 1) // gap + 1
                waste = (high - hi + lo - low) / (high - low)
                score = waste + 0.15 * max(0, want - count) + 0.05 * max(0, count - 7)
                if best is None or score < best[0] - 1e-12:
                    ticks = tuple(_tidy(low + k * step) for k in range(count))
                    digits = _decimals(ticks)
                    labels = tuple(_label(t, digits) for t in ticks)
                    best = (score, Axis(low, high, ticks, labels))
    assert best is not None   # step = span over one gap always holds the data
    return best[1]


def _tidy(value: float) -> float:
    """``value`` without the float noise of a product (6 * 0.0002 is 0.0012000000000000001)."""
    return float(f"{value:.12g}")


def _label(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def x_ticks(lo: float, hi: float, columns: int, whole: bool = False) -> tuple[list[float], list[str]]:
    """Round-number x ticks between ``lo`` and ``hi`` over ``columns`` cells, each label clear of the next.

    A column is a fine step, so these need no alignment; they are round so that a step reads as a step
    (``0 20 40 60``, not ``2.5 31.5 60.5``). Labels at least their width plus two cells apart: plotext
    (5.3.2) shifts a label that crowds a neighbour, in an order that changes with the hash seed, and the
    screen would then differ from run to run. ``whole``: the axis counts (steps), so only whole numbers
    are ticked: two steps read ``1 2``, not ``1.00 1.25 1.50``, and twelve ``5 10``, not ``2.5 5.0 7.5``.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo], [_label(lo, _decimals([lo]))]
    span = hi - lo
    steps = (nice * 10.0 ** e for e in range(math.floor(math.log10(span / max(2, columns))) - 1, 99) for nice in _NICE)
    for step in steps:
        if whole and (step < 1 or step != int(step)):
            continue
        first = _tidy(math.ceil(lo / step - 1e-9) * step)
        if first > hi + 1e-9 * span:
            return [], []   # no whole number in the range (and none at a larger step either)
        ticks = [_tidy(first + k * step) for k in range(int((hi - first) / step + 1e-9) + 1)]
        digits = _decimals(ticks)
        labels = [_label(t, digits) for t in ticks]
        if len(ticks) == 1 or columns * step / span >= max(map(len, labels)) + 2 and len(ticks) <= max(2, columns // 6):
            return ticks, labels
    return [lo], [_label(lo, _decimals([lo]))]


# line colours and markers ------------------------------------------------------------------------

# far apart on a dark and on a light background; more lines than these get evenly spread hues
_PALETTE = ((78, 168, 255), (255, 166, 43), (110, 208, 76), (255, 92, 138), (192, 140, 255), (46, 216, 208),
            (245, 224, 74), (255, 112, 80), (160, 160, 160), (156, 224, 156), (255, 176, 224), (128, 128, 255))
# without colour (NO_COLOR) the marker tells the lines apart, in the plot and in its legend
_MARKERS = ("•", "+", "x", "*", "o", "=", "#", "~", "%", "@", "&", "$")


def line_styles(count: int) -> list[tuple[tuple[int, int, int], str]]:
    """A colour (RGB) and a marker for each of ``count`` lines: no two lines share a colour."""
    if count <= len(_PALETTE):
        colours = list(_PALETTE[:count])
    else:
        colours = [tuple(round(255 * c) for c in colorsys.hsv_to_rgb(i / count, 0.6, 1.0)) for i in range(count)]
    return [(colour, _MARKERS[i % len(_MARKERS)]) for i, colour in enumerate(colours)]  # type: ignore[misc]
