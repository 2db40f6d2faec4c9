"""Plot axes that tell the truth (issue 15 item 2): each y label on the row where a point of its value is drawn.

plotext 5.3.2 spread its own 7 ticks evenly and rounded each down to a row, so at some heights two
landed on one row and a label vanished (utilisation read `100.0 83.3 66.7 33.3 16.7 0.0`, no 50) and
a 24 % line sat on the row labelled 16.7. The checks use plotext's own mapping (`get_matrix_data`),
for the ticks and for the data, and then the drawn plot itself.
"""

from __future__ import annotations

import re

import pytest
from plotext._utility import get_matrix_data
from textual.app import App

from tui.workbench.history import History
from tui.workbench.history_series import Series
from tui.store.series import WARMUP_LABEL
from tui.workbench.plot_lines import Line, line_styles, loss_lines, throughput_lines, x_ticks, y_axis
from tui.workbench.panes.series_plot import SeriesPlot
from workloads import protocol

RANGES = [(0, 100), (0, 137), (1.0, 5.9), (1045, 1380), (47, 71), (170, 640), (0.0012, 0.0031), (-3, 7), (5, 5),
          (0, 0)]


def data_row(value: float, lo: float, hi: float, rows: int, dots: int) -> int:
    """The row plotext draws a data point on, for a marker with ``dots`` sub-rows per row (1, 2 or 4)."""
    return get_matrix_data([value], [lo, hi], rows * dots)[0] // dots


@pytest.mark.parametrize("rows", range(4, 21))
@pytest.mark.parametrize("lo,hi", RANGES)
def test_each_y_label_names_the_value_drawn_on_its_row(rows, lo, hi):
    axis = y_axis(lo, hi, rows)
    assert axis.lo <= lo and axis.hi >= hi                      # the data fits
    assert len(axis.ticks) >= 2
    tick_rows = get_matrix_data(list(axis.ticks), [axis.lo, axis.hi], rows)
    assert tick_rows == sorted(set(tick_rows)) and 0 <= tick_rows[0] and tick_rows[-1] < rows  # a row each
    for tick, label, row in zip(axis.ticks, axis.labels, tick_rows):
        assert float(label) == pytest.approx(tick, abs=1e-12)    # the label says the tick's value
        for dots in (1, 2, 4):
            assert data_row(tick, axis.lo, axis.hi, rows, dots) == row, (tick, label, dots)


def test_plotexts_own_ticks_were_the_bug():
    """What the workbench showed at 120x36 before: seven even ticks over 0..100 on six rows lose one label."""
    ticks = [100 * k / 6 for k in range(7)]
    rows = get_matrix_data(ticks, [0, 100], 6)
    assert len(set(rows)) < len(ticks)
    assert len(set(get_matrix_data(list(y_axis(0, 100, 6).ticks), [0, 100], 6))) == len(y_axis(0, 100, 6).ticks)


@pytest.mark.parametrize("columns", range(10, 120, 7))
@pytest.mark.parametrize("lo,hi", [(2.5, 117.5), (0.0, 86400.0), (1.0, 12.0), (0.03, 4.2), (5.0, 5.5)])
def test_x_ticks_are_round_and_each_label_clear_of_the_next(columns, lo, hi):
    """Crowded labels are shifted by plotext in an order that changes with the hash seed: none may crowd."""
    ticks, labels = x_ticks(lo, hi, columns)
    assert all(lo <= t <= hi for t in ticks) and ticks == sorted(ticks)
    assert all(float(label) == pytest.approx(t) for t, label in zip(ticks, labels))
    cells = [columns * (t - lo) / (hi - lo) for t in ticks]
    assert all(b - a >= max(map(len, labels)) + 2 for a, b in zip(cells, cells[1:]))


def test_x_ticks_name_round_steps():
    assert x_ticks(2.5, 117.5, 60) == ([20, 40, 60, 80, 100], ["20", "40", "60", "80", "100"])
    assert x_ticks(3.0, 3.0, 60) == ([3.0], ["3"])


@pytest.mark.parametrize("columns", range(10, 120, 9))
@pytest.mark.parametrize("lo,hi", [(1.0, 1.9), (1.0, 2.0), (1.0, 2.7), (1.0, 4.5), (1.0, 11.0), (0.0, 256.0)])
def test_a_step_axis_ticks_whole_steps_only(columns, lo, hi):
    """Two steps were ticked ``1.00 1.25 1.50`` and twelve ``2.5 5.0 7.5`` (issue 36 item 11): steps are counted."""
    ticks, labels = x_ticks(lo, hi, columns, whole=True)
    assert ticks and all(re.fullmatch(r"\d+", label) for label in labels), labels
    assert all(lo <= t <= hi and float(label) == t for t, label in zip(ticks, labels))


def test_a_step_axis_with_no_whole_step_in_range_has_no_tick():
    assert x_ticks(0.5, 0.9, 60, whole=True) == ([], [])
    assert x_ticks(0.5, 0.9, 60)[1] != []   # a time axis still says where it is


def _step_series(count: int) -> Series:
    series = Series(1000)
    for i in range(1, count + 1):
        series.append(i, 10.0 * i)
    return series


@pytest.mark.parametrize("count", [2, 3, 5, 12])
@pytest.mark.parametrize("width", [40, 60, 90])
async def test_a_drawn_step_plot_labels_whole_steps(count, width):
    """The workbench's loss and throughput plots, drawn: the x labels' row names whole steps and the unit."""
    rows = await draw([Line("resnet50 images/s", _step_series(count), x_unit="steps")], 12, width=width)
    words = rows[-1].split()
    assert words[-1] == "steps" and words[:-1], rows[-3:]
    assert all(re.fullmatch(r"\d+", word) for word in words[:-1]), rows[-3:]


def test_no_two_lines_share_a_colour():
    for count in range(1, 21):
        colours = [colour for colour, _ in line_styles(count)]
        assert len(set(colours)) == count
    assert len({marker for _, marker in line_styles(12)}) == 12   # without colour, the markers tell them apart


class PlotApp(App):
    def __init__(self, plot: SeriesPlot) -> None:
        super().__init__()
        self.plot = plot

    def compose(self):
        yield self.plot


def flat(value: float, points: int = 40) -> Series:
    series = Series(1000)
    for i in range(points):
        series.append(i, value)
    return series


async def draw(lines: list[Line], height: int, width: int = 60, **options) -> list[str]:
    plot = SeriesPlot("test", lines, xlabel="steps", **options)
    app = PlotApp(plot)
    async with app.run_test(size=(width, height)):
        return plot.render().plain.split("\n")


LABEL = re.compile(r"^\s*(-?[\d.]+)(?:°C)?┤")


def labelled_rows(rows: list[str]) -> dict[int, float]:
    return {i: float(m.group(1)) for i, row in enumerate(rows) if (m := LABEL.match(row))}


def rows_with(rows: list[str], marker: str) -> set[int]:
    """The rows whose canvas (between the axis and the right frame) holds ``marker``."""
    out = set()
    for i, row in enumerate(rows):
        m = re.match(r"^[^┤│]*[┤│](.*)[│├]", row)
        if m and marker in m.group(1):
            out.add(i)
    return out


@pytest.mark.parametrize("height", range(8, 27, 3))
@pytest.mark.parametrize("percent,values", [(True, (24.0, 100.0)), (False, (1045.0, 1380.0))])
async def test_a_drawn_plot_puts_each_label_on_the_row_of_its_value(height, percent, values):
    """Draw the plot, read its labels, draw a flat line at each labelled value: each lands on its label's row.

    Wide enough that the legend stays on one row however many lines it names (the canvas keeps its height).
    """
    first = await draw([Line(f"v{v}", flat(v)) for v in values], height, width=200, percent=percent)
    labels = labelled_rows(first)
    assert len(labels) >= 2
    inside = {row: v for row, v in labels.items() if values[0] <= v <= values[1] or percent}
    lines = [Line(f"v{v}", flat(v)) for v in values] + [Line(f"at {v}", flat(v)) for v in inside.values()]
    rows = await draw(lines, height, width=200, percent=percent)
    assert labelled_rows(rows) == labels          # the extra lines did not move the axis
    styles = line_styles(len(lines))
    for (_, marker), line in zip(styles[len(values):], lines[len(values):]):
        value = float(line.label.split()[1])
        row = next(r for r, v in labels.items() if v == value)
        assert rows_with(rows, marker) == {row}, (line.label, rows)


async def test_the_legend_sits_above_the_plot_and_names_the_right_axis_by_its_unit():
    lines = [Line("GPU0 °C", flat(60.0)), Line("GPU0 W", flat(500.0), "right"),
             Line("GPU1 °C", flat(40.0)), Line("GPU1 W", flat(300.0), "right")]
    rows = await draw(lines, 14, axis_units=("°C", "W"))
    frame_top = next(i for i, row in enumerate(rows) if "┌" in row)
    legend = "\n".join(rows[:frame_top])
    for label in ("GPU0 °C", "GPU0 W", "GPU1 °C", "GPU1 W"):
        assert label in legend
    canvas = "\n".join(rows[frame_top:])
    assert "GPU0" not in canvas and "L " not in canvas and "⅃" not in canvas   # nothing over the data
    assert re.search(r"\d+°C┤", canvas) and re.search(r"├\d+W", canvas)     # each axis says its unit


def steps(history: History, key: str, workload: str, unit: str, count: int, loss: bool) -> None:
    history.run(key, label=workload, unit=unit)
    for i in range(1, count + 1):
        history.add_step(key, protocol.Step(step=i, loss=1.0 / i if loss else None, throughput=10.0 * i, unit=unit))


def test_a_step_plot_shows_one_workload_with_one_unit():
    """The suite's screenshot: 12 ResNet-50 steps and 256 GPT-2 tokens shared no step axis (a bar at x=1)."""
    h = History()
    steps(h, "r1", "resnet50", "images/s", 12, True)
    steps(h, "g1", "generate", "tokens/s", 256, False)
    # each run's line, then apart (grey) its warm-up steps' (the report's chart's split, `tui.store.series`)
    assert [line.label for line in throughput_lines(h)] == ["generate tokens/s", WARMUP_LABEL]
    assert [line.label for line in loss_lines(h)] == ["resnet50 loss"]   # the newest run that has a loss
    steps(h, "r2", "resnet50", "images/s", 12, True)
    assert [line.label for line in throughput_lines(h)] == ["resnet50 images/s", WARMUP_LABEL] * 2
    assert [line.series for line in loss_lines(h)] == [h.runs["r1"].loss, h.runs["r2"].loss]
    assert {line.side for line in throughput_lines(h)} == {"left"}
    assert {line.x_unit for line in throughput_lines(h)} == {"steps"}
    steps(h, "g2", "generate", "tokens/s", 64, False)
    assert {line.x_unit for line in throughput_lines(h)} == {"timed tokens"}   # as its state counts


def test_a_legend_that_does_not_fit_leaves_out_whole_entries_and_counts_them():
    from rich.style import Style
    from rich.text import Text

    from tui.workbench.panes.series_plot import header_rows

    entries = [(m, label, Style()) for m, label in zip("•+x*o", ["GPU0 util", "GPU0 mem", "GPU1 util", "GPU1 mem",
                                                                 "host cpu"])]
    assert [r.plain for r in header_rows(Text(), entries, 38, 2)] == ["• GPU0 util  + GPU0 mem  x GPU1 util",
                                                                      "* GPU1 mem  o host cpu"]
    assert [r.plain for r in header_rows(Text(), entries, 38, 1)] == ["• GPU0 util  + GPU0 mem  +3 more"]
    title = Text("host cpu %, cards unused (CPU run)")
    assert [r.plain for r in header_rows(title, entries[4:], 38, 1)] == [title.plain]   # the title is never cut


RIGHT_LABEL = re.compile(r"├(-?[\d.]+)W\s*$")


@pytest.mark.parametrize("height", range(8, 27, 3))
async def test_the_right_axis_labels_sit_on_their_rows_too(height):
    """temperature on the left, power on the right: a flat power line at each right label lands on its row."""
    temps = [Line("°C", flat(45.0)), Line("°C", flat(71.0))]
    power = (170.0, 640.0)
    options = dict(width=200, axis_units=("°C", "W"))
    first = await draw(temps + [Line("W", flat(p), "right") for p in power], height, **options)
    labels = {i: float(m.group(1)) for i, row in enumerate(first) if (m := RIGHT_LABEL.search(row))}
    assert len(labels) >= 2
    inside = [v for v in labels.values() if power[0] <= v <= power[1]][:8]   # 12 markers in all: no repeat
    lines = temps + [Line("W", flat(p), "right") for p in power] + [Line(f"at {v}", flat(v), "right") for v in inside]
    rows = await draw(lines, height, **options)
    assert {i: float(m.group(1)) for i, row in enumerate(rows) if (m := RIGHT_LABEL.search(row))} == labels
    for (_, marker), line in zip(line_styles(len(lines))[4:], lines[4:]):
        value = float(line.label.split()[1])
        assert rows_with(rows, marker) == {next(r for r, v in labels.items() if v == value)}, (line.label, rows)


def test_a_flat_rate_is_drawn_flat_not_as_a_ramp():
    """1.990-2.000 over the whole height made a steady rate look like a climb (issue 22.12f): the axis spans at
    least 5 % of the values, so a 0.5 % wander takes a tenth of the plot."""
    from tui.workbench.plot_lines import y_axis

    axis = y_axis(1.990, 2.000, 10)
    assert axis.hi - axis.lo >= 0.1 - 1e-9 and axis.lo <= 1.990 and axis.hi >= 2.000
    assert (2.000 - 1.990) / (axis.hi - axis.lo) <= 0.1 + 1e-9
    wide = y_axis(0.0, 100.0, 10)   # a range wider than that is untouched
    assert wide.lo == 0.0 and wide.hi >= 100.0
    small = y_axis(0.0, 0.001, 10)   # positive data near zero: the axis stays on the positive side
    assert small.lo >= 0.0
