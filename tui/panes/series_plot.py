"""One plotext plot drawing from `History` series, downsampled to its width when painted.

A module of its own so that textual-plotext (and plotext) load after the
workbench's first frame, not before it.
"""

from __future__ import annotations

from typing import Callable

from textual_plotext import PlotextPlot

from tui.history import DrawCache
from tui.plot_lines import Line, time_axis


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
            scale, unit = time_axis(lines)
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
