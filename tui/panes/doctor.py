"""The doctor screen: `tui.doctor.run_checks()` in a thread worker, its results as a table."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

_STATUS_STYLE = {"ok": "green", "pass": "green", "warn": "yellow", "fail": "bold red", "error": "bold red",
                 "skip": "dim"}


def checks_table(checks) -> Table:
    table = Table(expand=True, show_lines=False, pad_edge=False)
    # the check names wrap too: at 80 columns a no-wrap name column left the evidence 13 columns
    table.add_column("check", ratio=1, min_width=14)
    table.add_column("status", no_wrap=True)
    table.add_column("evidence / hint", ratio=2)
    for check in checks:
        status = str(getattr(check, "status", "?"))
        detail = Text(str(getattr(check, "evidence", "") or ""))
        hint = getattr(check, "hint", None)
        if hint:
            detail.append(f"\nhint: {hint}", style="yellow")
        table.add_row(str(getattr(check, "name", "?")),
                      Text(status.upper(), style=_STATUS_STYLE.get(status.lower(), "")), detail)
    return table


class DoctorScreen(ModalScreen[None]):
    """Checks that the driver, the management CLI, PyTorch and the device work; Escape closes."""

    BINDINGS = [Binding("escape,q,d", "close", "close")]

    def __init__(self, run_checks=None) -> None:
        super().__init__()
        self.run_checks = run_checks
        self.checks = None

    def compose(self):
        with VerticalScroll(id="doctor-body") as body:
            body.border_title = "doctor (Esc closes)"
            yield Static("running the checks... (a torch probe child starts; this takes a few seconds)",
                         id="doctor-result")

    def on_mount(self) -> None:
        self.query_one("#doctor-body").focus()  # PageDown and arrows scroll without a Tab first
        if self.run_checks is None:
            from tui.doctor import run_checks

            self.run_checks = run_checks
        self._run()

    @work(thread=True, exclusive=True, exit_on_error=False, group="doctor", description="doctor checks")
    def _run(self) -> None:
        try:
            checks = list(self.run_checks())
        except Exception as exc:  # noqa: BLE001 - a failing check run is a result to show
            self.app.call_from_thread(self._show_error, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._show, checks)

    def _show(self, checks) -> None:
        self.checks = checks
        if not self.is_attached:
            return  # closed before the checks finished
        self.query_one("#doctor-result", Static).update(checks_table(checks))

    def _show_error(self, text: str) -> None:
        if not self.is_attached:
            return
        self.query_one("#doctor-result", Static).update(Text(f"the checks could not run: {text}", style="red"))

    def action_close(self) -> None:
        self.dismiss(None)
