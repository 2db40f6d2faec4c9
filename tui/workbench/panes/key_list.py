"""The list of every key of the screen (`?`): the workload keys beside the actions' keys, in a modal.

A modal, not Textual's key panel: the panel docks beside the screen, which narrows every pane under it (the log
lost its right side) and stays until its own command hides it. A modal lays nothing out again under it, and
Escape or `?` pops it, which gives the screen back as it was.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.i18n import say


def key_table(title: str, rows: list[tuple[str, str]]) -> Table:
    """A heading and (keys, words) rows; Text, so no markup is read from a workload's name."""
    table = Table.grid(padding=(0, 1))
    table.title, table.title_justify, table.title_style = title, "left", "underline"
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for keys, words in rows:
        table.add_row(Text(keys), Text(words))
    return table


class KeyList(ModalScreen[None]):
    """Every key of the screen it was opened over: ``workloads`` and ``actions`` are (keys, words) rows."""

    DEFAULT_CSS = """
    KeyList { align: center middle; }
    KeyList #keys { width: 96; max-width: 100%; height: auto; max-height: 100%; border: round $accent;
                    background: $surface; padding: 0 1; }
    KeyList #key-columns { height: auto; }
    KeyList #key-workloads { width: auto; margin: 0 3 0 0; }
    KeyList #key-actions { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape,question_mark", "close", show=False),
    ]

    def __init__(self, workloads: list[tuple[str, str]], actions: list[tuple[str, str]]) -> None:
        super().__init__()
        self.workloads, self.actions = workloads, actions

    def compose(self):
        # scrolls where the terminal is shorter than the list; the screen under it is never resized
        with VerticalScroll(id="keys") as scroll:
            scroll.border_title = say("workbench.keys.title")
            scroll.border_subtitle = say("workbench.keys.close")
            with Horizontal(id="key-columns"):
                yield Static(key_table(say("workbench.keys.workloads"), self.workloads), id="key-workloads")
                yield Static(key_table(say("workbench.keys.actions"), self.actions), id="key-actions")

    def action_close(self) -> None:
        self.dismiss(None)
