"""The plots pane: loss, throughput, device utilisation/memory and temperature/power.

The plots themselves (`tui.panes.series_plot`) are mounted by :meth:`PlotsPane.build`
after the first frame, so start-up does not wait for plotext.

Each plot draws from the shared `History`, downsampled to its own width at
render time (cached per data version), so the whole run is shown however long
it is. Textual renders only what is on screen, so a hidden plot (the pane in
one-plot mode, a small terminal) costs nothing until it is shown again.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.containers import Container
from textual.reactive import reactive

from tui.history import History, Series

# below this size the pane shows one plot at a time (`p` cycles)
MIN_GRID_WIDTH = 70
MIN_GRID_HEIGHT = 18


@dataclass
class Line:
    label: str
    series: Series
    side: str = "left"   # "right": the second unit of the plot


def time_scale(span_s: float) -> tuple[float, str]:
    if span_s >= 2 * 3600:
        return 3600.0, "h"
    if span_s >= 120:
        return 60.0, "min"
    return 1.0, "s"


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
        self.plots: list = []   # mounted by build(), after the first frame

    async def build(self) -> None:
        """Mount the plots (and load plotext): called once the first frame is out."""
        if self.plots:
            return
        from tui.panes.series_plot import SeriesPlot

        plots = [
            SeriesPlot("loss", lambda: _loss_lines(self.history), xlabel="step", id="plot-loss",
                       empty="none yet (training reports it)"),
            SeriesPlot("throughput", lambda: _throughput_lines(self.history), xlabel="step",
                       id="plot-throughput"),
            SeriesPlot("utilisation %", lambda: _util_lines(self.history), xlabel="time", time_axis=True,
                       id="plot-util", empty="no telemetry yet", percent=True),
            SeriesPlot("temp °C / power W", lambda: _thermal_lines(self.history), xlabel="time",
                       time_axis=True, id="plot-thermal", empty="N/A"),
        ]
        await self.mount_all(plots)
        self.plots = plots
        self._apply()

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
