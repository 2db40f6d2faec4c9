"""The plots pane: loss, throughput, device utilisation/memory and temperature/power.

The plots themselves (`tui.workbench.panes.series_plot`) are mounted by :meth:`PlotsPane.build`
after the first frame, so start-up does not wait for plotext. What each one draws comes from the
poller's snapshots (`tui.workbench.view.snapshot`: :meth:`PlotsPane.show`), which hold the lines of the
plots the pane says it shows (:meth:`PlotsPane.wanted`); the lines are UI-free functions of the history, in
`tui.workbench.plot_lines`.

Each plot is downsampled to its own width at render time (cached per data version), so the whole run is
shown however long it is. Textual renders only what is on screen, so a hidden plot (the pane in
one-plot mode, a small terminal) costs nothing until it is shown again.

While the runs shown are on the CPU the card plots draw no card lines (their
readings are not the run's data) and say so in their titles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from textual.containers import Container
from textual.reactive import reactive

from workloads.facts.missing import NA

if TYPE_CHECKING:
    from tui.workbench.view.snapshot import LiveSnapshot

UTIL_TITLE, THERMAL_TITLE, THERMAL_EMPTY = "utilisation %", "temp °C / power W", NA
# below this size the pane shows one plot at a time (`p` cycles)
MIN_GRID_WIDTH = 70
MIN_GRID_HEIGHT = 18


class PlotsPane(Container):
    """Four plots in a grid, or one at a time when the pane is small (``p`` cycles)."""

    shown: reactive[int] = reactive(-1)   # -1: all that fit; else the index of the one plot shown

    def __init__(self, wanted_changed: Callable[[], None], **kwargs) -> None:
        """``wanted_changed()``: the plots shown changed, a snapshot with their lines is wanted (the poller's)."""
        super().__init__(**kwargs)
        self._wanted_changed = wanted_changed
        self.single = False
        self.plots: list = []   # mounted by build(), after the first frame
        self._shown_index = -1  # the plot shown alone (-1: all)
        self._with_data: list[int] = []   # the last snapshot's plots that have a point
        self.cards_unused = False

    async def build(self) -> None:
        """Mount the plots (and load plotext): called once the first frame is out."""
        if self.plots:
            return
        from tui.workbench.panes.series_plot import SeriesPlot

        plots = [
            SeriesPlot("loss", xlabel="steps", id="plot-loss", empty="none yet (training reports it)"),
            SeriesPlot("throughput", xlabel="steps", id="plot-throughput"),
            SeriesPlot(UTIL_TITLE, xlabel="time", time_axis=True, id="plot-util", empty="no telemetry yet",
                       percent=True),
            SeriesPlot(THERMAL_TITLE, xlabel="time", time_axis=True, id="plot-thermal", empty=THERMAL_EMPTY,
                       axis_units=("°C", "W")),
        ]
        await self.mount_all(plots)
        self.plots = plots
        self._apply()

    def wanted(self) -> tuple[Sequence[int], bool]:
        """The plots (their places, as `tui.workbench.view.snapshot.PLOTS` orders them) whose lines a snapshot
        should hold, and whether only up to the first of them with data (a small pane left to choose shows it)."""
        every = range(len(self.plots))
        if self.single and self.shown < 0:
            return every, True
        return (every if self.shown < 0 else (self.shown,)), False

    def show(self, snapshot: LiveSnapshot) -> None:
        """A snapshot's lines in the plots it holds them for; the others keep theirs (hidden, or not yet asked)."""
        for plot, lines in zip(self.plots, snapshot.lines):
            if lines is not None:
                plot.lines = lines
        self._with_data = snapshot.with_data()
        self.cards_unused = snapshot.cards_unused
        self.refresh_plots()

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
        return self._with_data[0] if self._with_data else 0

    def _apply(self) -> None:
        index = self._one_shown() if self.single else self.shown
        self.set_class(index >= 0, "-one")
        self._shown_index = index
        for i, plot in enumerate(self.plots):
            plot.display = index < 0 or i == index
        if self.plots:
            self._wanted_changed()   # a plot shown now may hold an older snapshot's lines
        self.refresh_plots()

    def refresh_plots(self) -> None:
        if self.plots:
            self._say_where_the_run_is()
            self.follow_data()
        for plot in self.plots:
            plot.refresh_if_changed()

    def follow_data(self) -> None:
        """A small pane left to choose shows the first plot with data: it changes with a run's first step or
        the first sample."""
        if self.plots and self.single and self.shown < 0 and self._one_shown() != self._shown_index:
            self._apply()

    def _say_where_the_run_is(self) -> None:
        """On the CPU: the utilisation plot is the host's, the thermal plot says why it is empty."""
        from tui.workbench.plot_lines import CARDS_UNUSED

        unused = self.cards_unused
        util, thermal = self.plots[2], self.plots[3]
        util.title = f"host cpu %, {CARDS_UNUSED}" if unused else UTIL_TITLE
        thermal.title = "temp/power" if unused else THERMAL_TITLE
        thermal.empty = CARDS_UNUSED if unused else THERMAL_EMPTY
