"""The runs in progress on this machine (key r): pick one to attach to (Enter) or to stop (x).

The list comes from the run store (`tui.store.live.live_runs`): runs recorded by a `cardbench run` that is
alive and beating, detached or not. The screen only chooses; the app attaches and stops.
"""

from __future__ import annotations

import time

from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from workloads.facts.formatting import format_duration
from tui.workbench.panes.safe import line
from tui.store.live import LiveRun
from workloads.safe_text import file_name, one_line


def describe(live: LiveRun, now: float | None = None) -> str:
    """'20261203-063415-tick-1e78  tick  detached, pid 13287, up 5 min'. The id (a folder's name) and the workload
    (its live.json's word) are printable: the run may be someone else's."""
    now = time.time() if now is None else now
    how = "detached" if live.detached else "in a terminal"
    return (f"{file_name(live.id)}  {one_line(live.workload or '?', 80)}  {how}, pid {live.pid}, "
            f"up {format_duration(max(0.0, now - live.started))}")


class LiveRunsScreen(ModalScreen["tuple[str, LiveRun] | None"]):
    """Dismissed with ("attach", run), ("stop", run) or None."""

    DEFAULT_CSS = """
    LiveRunsScreen { align: center middle; }
    LiveRunsScreen #live-dialog { width: 90%; max-width: 120; height: auto; max-height: 80%;
                                  border: round $primary; background: $surface; padding: 0 1; }
    LiveRunsScreen Label { width: 1fr; }
    LiveRunsScreen OptionList { height: auto; max-height: 16; }
    """
    BINDINGS = [
        Binding("enter,a", "choose('attach')", "attach"),
        Binding("x", "choose('stop')", "stop"),
        Binding("escape,r", "close", "close"),
    ]

    def __init__(self, runs: list[LiveRun]) -> None:
        super().__init__()
        self.runs = runs

    def compose(self):
        with Vertical(id="live-dialog"):
            if self.runs:
                yield Label("runs in progress on this machine: Enter attaches (plots, log, state), x stops one")
                # a Text, not a string: Textual would read markup ('[bold]') in a folder's name
                yield OptionList(*(Option(line(describe(run)), id=str(i)) for i, run in enumerate(self.runs)),
                                 id="live-list")
            else:
                yield Label("no run in progress on this machine (start one detached: D, or `cardbench run ... "
                            "--detach`)", id="live-none")
        yield Footer()

    def on_mount(self) -> None:
        if self.runs:
            listing = self.query_one(OptionList)
            listing.highlighted = len(self.runs) - 1  # the newest
            listing.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(("attach", self.runs[event.option_index]))

    def action_choose(self, what: str) -> None:
        if not self.runs:
            return
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self.dismiss((what, self.runs[index]))

    def action_close(self) -> None:
        self.dismiss(None)
