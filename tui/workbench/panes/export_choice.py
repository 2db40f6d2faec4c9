"""Which runs the report bundle takes (key e): a list to check and uncheck, Enter exports, Escape cancels.

The finished runs come checked; a stopped, failed, cut-off or unreadable one only when the user checks it (an
aborted run's 'stopped, N/A' row is no benchmark). The screen only chooses; `tui.workbench.panes.export` writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, SelectionList
from textual.widgets.selection_list import Selection

from tui.workbench.view.export_runs import ExportRow
from workloads.safe_text import file_name, one_line

NONE_CHECKED = "no run checked: check one (space) or press Escape"


def describe(row: ExportRow) -> Text:
    """'resnet50  ok  950 images/s  20261206-212030-resnet50-1a2b': the workload and id come from a run directory
    (printable, and a Text so no markup is read from them)."""
    status = row.status if not row.why else f"{row.status} ({row.why})"
    return Text(f"{one_line(row.workload, 24):<14} {status:<10} {one_line(row.headline, 40):>18}  "
                f"{file_name(row.path.name)}")


class ExportChoice(ModalScreen["list[Path] | None"]):
    """Dismissed with the checked runs' directories, in the order listed, or None (Escape)."""

    DEFAULT_CSS = """
    ExportChoice { align: center middle; }
    ExportChoice #export-dialog { width: 90%; max-width: 110; height: auto; max-height: 80%;
                                  border: round $primary; background: $surface; padding: 0 1; }
    ExportChoice Label { width: 1fr; }
    ExportChoice SelectionList { height: auto; max-height: 16; }
    ExportChoice #export-count.-none { color: $warning; }
    ExportChoice #export-buttons { height: auto; }
    """
    # priority: Enter inside the list would toggle the highlighted run (SelectionList's select); space does that
    BINDINGS = [
        Binding("enter", "export", "export the checked", priority=True),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, rows: Sequence[ExportRow]) -> None:
        super().__init__()
        self.rows = list(rows)

    def compose(self):
        with Vertical(id="export-dialog"):
            yield Label("the report bundle takes the checked runs: space checks or unchecks one, Enter exports, "
                        "Escape cancels")
            yield SelectionList[int](*(Selection(describe(row), i, row.finished) for i, row in enumerate(self.rows)),
                                     id="export-list")
            yield Label(self._count(), id="export-count")
            with Horizontal(id="export-buttons"):
                yield Button("export (Enter)", variant="success", id="export-go", compact=True)
                yield Button("cancel (Esc)", id="export-cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def _count(self, checked: int | None = None) -> str:
        """'2 of 3 runs checked': a check mark's state is a colour alone, and a terminal may show none."""
        checked = sum(row.finished for row in self.rows) if checked is None else checked
        return NONE_CHECKED if not checked else f"{checked} of {len(self.rows)} runs checked"

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged) -> None:
        checked = len(event.selection_list.selected)
        count = self.query_one("#export-count", Label)
        count.update(self._count(checked))
        count.set_class(not checked, "-none")

    @property
    def chosen(self) -> list[Path]:
        """The checked runs, in the order listed (the session's order: the report's too)."""
        checked = set(self.query_one(SelectionList).selected)
        return [row.path for i, row in enumerate(self.rows) if i in checked]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export-go":
            self.action_export()
        else:
            self.action_cancel()

    def action_export(self) -> None:
        chosen = self.chosen
        if not chosen:
            count = self.query_one("#export-count", Label)
            count.update(NONE_CHECKED)
            count.add_class("-none")
            self.app.bell()
            return
        self.dismiss(chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
