"""What the workbench shows of live data at one moment, UI-free and immutable: the devices' newest sample, each
plot's lines and the run's state.

    snapshot = build_snapshot(history, state, sample, wanted=(0, 2), copies=copies)   # loss, utilisation

The poller (`tui.workbench.app.poller`) builds one after each poll and posts it as one message; the panes render
it and nothing else. Nothing in it changes afterwards: the dataclass is frozen, the lines are tuples of frozen
`Line` whose series are `FrozenSeries` copies (a series that did not move since the last snapshot is not copied
again: `SeriesCopies`), and the state is a copy of the app's.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from tui.workbench.history import History
from tui.workbench.history_series import FrozenSeries, Series
from tui.workbench.plot_lines import Line, loss_lines, thermal_lines, throughput_lines, util_lines
from tui.workbench.view.run_state import RunState

# what each plot draws, in the order the plots pane shows them (a plot is named by its place here)
PLOTS: tuple[Callable[[History], list[Line]], ...] = (loss_lines, throughput_lines, util_lines, thermal_lines)


@dataclass(frozen=True)
class LiveSnapshot:
    """The devices, the plots' series and the run's state, as one poll saw them."""

    sample: Any                                 # the newest telemetry `Sample` (frozen), or None before the first
    state: RunState                             # a copy: the app's own goes on changing
    lines: tuple[tuple[Line, ...] | None, ...]  # per plot (`PLOTS`): its lines, None where not asked (``wanted``)
    cards_unused: bool                          # the runs shown are on the CPU: the cards' lines are left out

    def with_data(self) -> list[int]:
        """The plots (their places in `PLOTS`) that have a line with a point."""
        return [i for i, lines in enumerate(self.lines) if lines and any(len(line.series) for line in lines)]


class SeriesCopies:
    """The frozen copy of each live series, made again only when the series moved (its version)."""

    def __init__(self) -> None:
        self._copies: dict[int, tuple[int, FrozenSeries]] = {}

    def of(self, series: Series, used: dict[int, tuple[int, FrozenSeries]]) -> FrozenSeries:
        found = self._copies.get(series.key)
        if found is None or found[0] != series.version:
            found = (series.version, series.frozen())
        used[series.key] = found
        return found[1]

    def keep_only(self, used: dict[int, tuple[int, FrozenSeries]]) -> None:
        """Forget the copies of series this snapshot did not use (a dropped run's)."""
        self._copies = used


def build_snapshot(history: History, state: RunState, sample: Any, *, wanted: Sequence[int] = range(len(PLOTS)),
                   first_with_data: bool = False, copies: SeriesCopies | None = None) -> LiveSnapshot:
    """A snapshot of the plots placed in ``wanted``; ``first_with_data``: up to the first of them with a point (a
    small pane shows that one alone, and a run read from disk builds no other series)."""
    copies = copies or SeriesCopies()
    used: dict[int, tuple[int, FrozenSeries]] = {}
    lines: list[tuple[Line, ...] | None] = [None] * len(PLOTS)
    for i in sorted(wanted):
        drawn = tuple(replace(line, series=copies.of(line.series, used)) for line in PLOTS[i](history))
        lines[i] = drawn
        if first_with_data and any(len(line.series) for line in drawn):
            break
    copies.keep_only(used)
    return LiveSnapshot(sample, copy.deepcopy(state), tuple(lines), history.cards_unused)
