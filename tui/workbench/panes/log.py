"""The log pane: the run's events, its stderr, warnings and errors with their hints."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import RichLog

from tui.figures import glance_text
from workloads.facts.formatting import utc_clock
from tui.workbench.panes.safe import shown

if TYPE_CHECKING:
    from workloads import protocol

MAX_LINES = 5000


def event_text(event: protocol.Event, workload: str | None = None) -> Text | None:
    """How an event reads in the log; steps are left to the plots (None). A result reads in its workload's words.

    Each text is made printable before it is a Text (`tui.workbench.panes.safe`): an event's strings come from its workload,
    a server or a run directory someone else wrote."""
    from workloads import protocol   # with the first event: the first frame logs none

    if isinstance(event, protocol.Step):
        return None
    if isinstance(event, protocol.Error):
        text = shown(f"ERROR: {event.message}", style="bold red")
        if event.hint:
            text.append_text(shown(f"\n  hint: {event.hint}", style="yellow"))
        return text
    if isinstance(event, protocol.Fallback):
        return shown(event.describe(), style="bold yellow")
    if isinstance(event, protocol.WorkloadWarning):
        return shown(event.describe(), style="yellow")
    if isinstance(event, protocol.Result):
        # the glance: every figure would fill the pane (run.log and the report have them all)
        return shown(glance_text(workload, event.metrics) if workload else event.describe(), style="bold green")
    if isinstance(event, protocol.End):
        style = {"ok": "green", "failed": "bold red", "stopped": "yellow"}.get(event.status, "")
        return shown(event.describe(), style=style)
    return shown(event.describe())


class LogPane(RichLog):
    """Newest line last; holds the last MAX_LINES lines (run.log keeps everything)."""

    def __init__(self, clock=time.time, **kwargs) -> None:
        super().__init__(max_lines=MAX_LINES, wrap=True, markup=False, highlight=False, min_width=1, **kwargs)
        self.clock = clock
        self.border_title = "log"
        self.lines_text: list[str] = []  # plain text of what was written, newest last (tests, export)
        self.workload: str | None = None  # of the run whose events arrive: its start event says

    def say(self, text: str | Text, style: str = "") -> None:
        # every line, whoever wrote it: a run's id, path and texts come from a run directory (`tui.workbench.panes.safe`)
        text = shown(text, style=style)
        line = Text(f"{utc_clock(self.clock())} ", style="dim") + text  # UTC, as the report's times
        self.lines_text.append(line.plain)
        del self.lines_text[:-MAX_LINES]
        self.write(line)

    def event(self, event: protocol.Event) -> None:
        from workloads import protocol

        if isinstance(event, protocol.Start):
            self.workload = event.workload
        text = event_text(event, self.workload)
        if text is not None:
            self.say(text)
