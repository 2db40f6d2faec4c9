"""A yes/no question in a modal; y/Enter says yes, n/Escape says no.

The question wraps (a command line is longer than the dialog), and the modal has its own
footer: while it is up only y and n work, so the workbench's keys are not offered.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label

from tui.workbench.panes.safe import shown


class Confirm(ModalScreen[bool]):
    DEFAULT_CSS = """
    Confirm #question { width: 1fr; }
    """
    BINDINGS = [
        Binding("y,enter", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        # a question names what it asks about (a run's workload, read from its directory): printable, and a Text,
        # so no markup is read from it either
        self.question = shown(question).plain
        self.yes, self.no = yes, no

    def compose(self):
        with Vertical(id="dialog"):
            yield Label(shown(self.question), id="question")
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="yes", compact=True)
                yield Button(f"{self.no} (n)", id="no", compact=True)
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
