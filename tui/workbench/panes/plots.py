"""The plots pane: loss, throughput, device utilisation/memory and temperature/power.

The plots themselves (`tui.workbench.panes.series_plot`) are mounted by :meth:`PlotsPane.build`
after the first frame, so start-up does not wait for plotext. What each one draws
is a UI-free function of the history, in `tui.workbench.plot_lines`.

Each plot draws from the shared `History`, downsampled to its own width at
render time (cached per data version), so the whole run is shown however long
it is. Textual renders only what is on screen, so a hidden plot (the pane in
one-plot mode, a small terminal) costs nothing until it is shown again.

While the runs shown are on the CPU the card plots draw no card lines (their
readings are not the run's data) and say so in their titles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from textual.containers import Container
from textual.reactive import reactive

from workloads.facts.missing import NA

if TYPE_CHECKING:
    from tui.workbench.history import History

UTIL_TITLE, THERMAL_TITLE, THERMAL_EMPTY = "utilisation %", "temp °C / power W", NA
# below this size the pane shows one plot at a time (`p` cycles)
MIN_GRID_WIDTH = 70
MIN_GRID_HEIGHT = 18


class PlotsPane(Container):
    """Four plots in a grid, or one at a time when the pane is small (``p`` cycles)."""

    shown: reactive[int] = reactive(-1)   # -1: all that fit; else the index of the one plot shown

    def __init__(self, history: Callable[[], History], **kwargs) -> None:
        """``history``: the app's `History`, asked for when the plots are built (the app makes it at its first
        use, after the first frame, which shows no plot)."""
        super().__init__(**kwargs)
        self._history = history
        self.single = False
        self.plots: list = []   # mounted by build(), after the first frame
        self._shown_index = -1  # the plot shown alone (-1: all)

    async def build(self) -> None:
        """Mount the plots (and load plotext): called once the first frame is out."""
        if self.plots:
            return
        from tui.workbench.panes.series_plot import SeriesPlot
        from tui.workbench.plot_lines import loss_lines, thermal_lines, throughput_lines, util_lines

        plots = [
            SeriesPlot("loss", lambda: loss_lines(self.history), xlabel="steps", id="plot-loss",
                       empty="none yet (training reports it)"),
            SeriesPlot("throughput", lambda: throughput_lines(self.history), xlabel="steps",
                       id="plot-throughput"),
            SeriesPlot(UTIL_TITLE, lambda: util_lines(self.history), xlabel="time", time_axis=True,
                       id="plot-util", empty="no telemetry yet", percent=True),
            SeriesPlot(THERMAL_TITLE, lambda: thermal_lines(self.history), xlabel="time",
                       time_axis=True, id="plot-thermal", empty=THERMAL_EMPTY, axis_units=("°C", "W")),
        ]
        await self.mount_all(plots)
        self.plots = plots
        self._apply()

    @property
    def history(self) -> History:
        return self._history()

    def on_resize(self) -> None:
        single = self.size.width < MIN_GRID_WIDTH or self.size.height < MIN_GRID_HEIGHT
        if single != self.single:
            self.single = single
            self._apply()

    def cycle(self) -> None:
        """All plots -> each one alone -> all again (one alone -> the next, when the pane is small)."""
        count = len(self.plots)
        if self.single:
            self.shown = (self._one_shown() + 1) % count
        else:
            self.shown = self.shown + 1 if self.shown + 1 < count else -1

    def watch_shown(self) -> None:
        self._apply()

    def _one_shown(self) -> int:
        """The plot a small pane shows: the one chosen with ``p``, else the first that has data (loss,
        throughput, utilisation, temperature), so a small screen or its screenshot is not one empty plot."""
        if self.shown >= 0:
            return self.shown
        return next((i for i, plot in enumerate(self.plots) if plot.has_data()), 0)

    def _apply(self) -> None:
        index = self._one_shown() if self.single else self.shown
        self.set_class(index >= 0, "-one")
        self._shown_index = index
        for i, plot in enumerate(self.plots):
            plot.display = index < 0 or i == index
        self.refresh_plots()

    def refresh_plots(self) -> None:
        if self.plots:
            self._say_where_the_run_is()
            self.follow_data()
        for plot in self.plots:
            plot.refresh_if_changed()

    def follow_data(self) -> None:
        """A small pane left to choose shows the first plot with data: it changes with a run's first step or
        the first sample (the app calls this on a sample, so the screen follows before the next repaint)."""
        if self.plots and self.single and self.shown < 0 and self._one_shown() != self._shown_index:
            self._apply()

    def _say_where_the_run_is(self) -> None:
        """On the CPU: the utilisation plot is the host's, the thermal plot says why it is empty."""
        from tui.workbench.plot_lines import CARDS_UNUSED

        unused = self.history.cards_unused
        util, thermal = self.plots[2], self.plots[3]
        util.title = f"host cpu %, {CARDS_UNUSED}" if unused else UTIL_TITLE
        thermal.title = "temp/power" if unused else THERMAL_TITLE
        thermal.empty = CARDS_UNUSED if unused else THERMAL_EMPTY
