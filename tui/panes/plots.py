"""The plots pane: loss, throughput, device utilisation/memory and temperature/power.

Each plot draws from the shared `History`, downsampled to its own width at
render time (cached per data version), so the whole run is shown however long
it is. Textual renders only what is on screen, so a hidden plot (the pane in
one-plot mode, a small terminal) costs nothing until it is shown again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from textual.containers import Container
from textual.reactive import reactive
from textual_plotext import PlotextPlot

from tui.history import DrawCache, History, Series

# below this size the pane shows one plot at a time (`p` cycles)
MIN_GRID_WIDTH = 70
MIN_GRID_HEIGHT = 18


@dataclass
class Line:
    label: str
    series: Series
    side: str = "left"   # "right": the second unit of the plot


def _time_scale(span_s: float) -> tuple[float, str]:
    if span_s >= 2 * 3600:
        return 3600.0, "h"
    if span_s >= 120:
        return 60.0, "min"
    return 1.0, "s"


class SeriesPlot(PlotextPlot):
    """One plot; ``lines()`` says what to draw, asked only when the plot is painted."""

    DEFAULT_CSS = """
    SeriesPlot { height: 1fr; width: 1fr; }
    """

    def __init__(self, title: str, lines: Callable[[], list[Line]], *, xlabel: str, time_axis: bool = False,
                 empty: str = "no data yet", percent: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.lines = lines
        self.xlabel = xlabel
        self.time_axis = time_axis
        self.empty = empty
        self.percent = percent      # y from 0 to 100 (or above, if a reading is): a flat line reads true
        self.renders = 0            # paints so far: tests assert hidden plots are not drawn
        self._cache = DrawCache()
        self._drawn_versions: tuple = ()

    def data_version(self) -> tuple:
        return tuple((id(line.series), line.series.version) for line in self.lines())

    def refresh_if_changed(self) -> None:
        """Repaint when the data moved since the last paint (a no-op for an unchanged or hidden plot)."""
        if not self.display:
            return
        version = self.data_version()
        if version != self._drawn_versions:
            self.refresh()

    def render(self):
        self.renders += 1
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        lines = [line for line in self.lines() if len(line.series)]
        self._drawn_versions = self.data_version()
        width = max(10, self.size.width - 12)  # what the y-axis labels leave for points
        xlabel = self.xlabel
        scale = 1.0
        if self.time_axis and lines:
            span = max(line.series.xs[-1] for line in lines) - min(line.series.xs[0] for line in lines)
            scale, unit = _time_scale(span)
            xlabel = f"{self.xlabel} ({unit})"
        plt.title(self.title)
        if not lines:
            plt.title(f"{self.title}: {self.empty}")
            plt.xticks([])
            plt.yticks([])
            return super().render()
        top = 0.0
        for line in lines:
            drawn = self._cache.get(line.series, width)
            xs = [x / scale for x in drawn.xs] if scale != 1.0 else drawn.xs
            plt.plot(xs, drawn.ys, label=line.label, yside=line.side)
            top = max(top, max(drawn.ys))
        if self.percent:
            plt.ylim(0, max(100.0, top))
        plt.xlabel(xlabel)
        return super().render()


def _loss_lines(history: History) -> list[Line]:
    return [Line(f"{run.label} loss", run.loss) for run in history.runs.values()]


def _throughput_lines(history: History) -> list[Line]:
    units: list[str] = []
    out: list[Line] = []
    for run in history.runs.values():
        unit = run.unit or "items/s"
        if unit not in units:
            units.append(unit)
        side = "left" if units.index(unit) == 0 else "right"
        out.append(Line(f"{run.label} {unit}", run.throughput, side))
    return out


def _util_lines(history: History) -> list[Line]:
    out: list[Line] = []
    for index in history.device_indices():
        out.append(Line(f"gpu{index} util %", history.telemetry[f"util:{index}"]))
        out.append(Line(f"gpu{index} mem %", history.telemetry[f"mem:{index}"]))
    if "cpu" in history.telemetry:
        out.append(Line("host cpu %", history.telemetry["cpu"]))
    return out


def _thermal_lines(history: History) -> list[Line]:
    out: list[Line] = []
    for index in history.device_indices():
        out.append(Line(f"gpu{index} °C", history.telemetry[f"temp:{index}"]))
        out.append(Line(f"gpu{index} W", history.telemetry[f"power:{index}"], "right"))
    return out


class PlotsPane(Container):
    """Four plots in a grid, or one at a time when the pane is small (``p`` cycles)."""

    shown: reactive[int] = reactive(-1)   # -1: all that fit; else the index of the one plot shown

    def __init__(self, history: History, **kwargs) -> None:
        super().__init__(**kwargs)
        self.history = history
        self.single = False
        self.plots = [
            SeriesPlot("loss", lambda: _loss_lines(self.history), xlabel="step", id="plot-loss",
                       empty="starts with a training run"),
            SeriesPlot("throughput", lambda: _throughput_lines(self.history), xlabel="step",
                       id="plot-throughput"),
            SeriesPlot("utilisation %", lambda: _util_lines(self.history), xlabel="time", time_axis=True,
                       id="plot-util", empty="no telemetry yet", percent=True),
            SeriesPlot("temp °C / power W", lambda: _thermal_lines(self.history), xlabel="time",
                       time_axis=True, id="plot-thermal", empty="N/A"),
        ]

    def compose(self):
        yield from self.plots

    def on_resize(self) -> None:
        single = self.size.width < MIN_GRID_WIDTH or self.size.height < MIN_GRID_HEIGHT
        if single != self.single:
            self.single = single
            self._apply()

    def cycle(self) -> None:
        """All plots -> each one alone -> all again (one alone -> the next, when the pane is small)."""
        count = len(self.plots)
        if self.single:
            self.shown = (max(self.shown, 0) + 1) % count
        else:
            self.shown = self.shown + 1 if self.shown + 1 < count else -1

    def watch_shown(self) -> None:
        self._apply()

    def _apply(self) -> None:
        index = self.shown
        if self.single and index < 0:
            index = 0
        self.set_class(index >= 0, "-one")
        for i, plot in enumerate(self.plots):
            plot.display = index < 0 or i == index
        self.refresh_plots()

    def refresh_plots(self) -> None:
        for plot in self.plots:
            plot.refresh_if_changed()
