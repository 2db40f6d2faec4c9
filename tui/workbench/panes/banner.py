"""The CPU-trap banner: work on the CPU while accelerators are listed, across the top of the screen.

What it says comes from `tui.cpu_trap` (the run's warning, else the warning before a run); the banner
owns only the showing: '!! what', then why and the hint, in words as well as colour (NO_COLOR keeps the
'!!' and the capitals), and hidden when there is nothing to say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from workloads.safe_text import one_line

if TYPE_CHECKING:
    from tui.cpu_trap import CpuTrap

Lines = tuple[str, str] | None   # (what, why and the hint), or None: nothing to say


class CpuBanner(Static):
    """Work on the CPU while accelerators are listed, across the top: '!! what', then why and the hint."""

    lines: reactive[Lines] = reactive(None, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.display = False

    def show_trap(self, alarm: Any, trap: CpuTrap, workload: str, args: Iterable[Any]) -> None:
        """The run's CPU-trap warning event when it has one, else the warning before starting ``workload``."""
        from tui.cpu_trap import alarm_lines   # with the trap's words, after the first frame (the banner is hidden)

        self.lines = alarm_lines(alarm) if alarm is not None else trap.before_run_lines(workload, args)

    def validate_lines(self, lines: Lines) -> Lines:
        return lines if lines and lines[0] else None

    def watch_lines(self, lines: Lines) -> None:
        self.display = lines is not None
        if lines is None:
            return
        what, detail = lines
        # the run's warning event words them, and a run directory someone else wrote may be what is shown
        text = Text(f"!! {one_line(what)}", style="bold")
        if detail:
            text.append(f"\n{one_line(detail)}; d runs the doctor")
        self.update(text)
