"""The doctor screen: `tui.doctor.run_checks()` in a thread worker, its results as a table under their totals.

When the checks are in, the screen posts `DoctorFinished` to the app, whose log records
the totals and each FAIL and WARN (`log_lines`). The screen has its own footer: while it
is up only its keys work, so the workbench's are not offered.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tui.doctor.check import FAIL, WARN, field_of, totals
from tui.workbench.panes.messages import DoctorFinished

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


def totals_line(checks) -> Text:
    """'11 PASS, 1 WARN, 0 FAIL, 1 SKIP', red when a check FAILs, yellow when one WARNs."""
    statuses = {str(field_of(c, "status") or "").upper() for c in checks}
    style = "bold red" if FAIL in statuses else "bold yellow" if WARN in statuses else "bold green"
    return Text(f"doctor: {totals(checks)}", style=style)


def log_lines(checks) -> list[tuple[str, str]]:
    """(line, style) for the workbench's log: the totals, then each FAIL and WARN with its evidence and hint."""
    head = totals_line(checks)
    lines = [(head.plain, str(head.style))]
    for check in checks:
        status = str(field_of(check, "status") or "").upper()
        if status not in (FAIL, WARN):
            continue
        hint = field_of(check, "hint")
        text = f"  {status} {field_of(check, 'name')}: {field_of(check, 'evidence')}"
        text += f" (hint: {hint})" if hint else ""
        lines.append((text, "red" if status == FAIL else "yellow"))
    return lines


class DoctorScreen(ModalScreen[None]):
    """Checks that the driver, the management CLI, PyTorch and the device work; Escape closes."""

    BINDINGS = [Binding("escape,q,d", "close", "close")]  # the footer shows the first: Esc

    def __init__(self, run_checks=None) -> None:
        super().__init__()
        self.run_checks = run_checks
        self.checks = None

    def compose(self):
        with VerticalScroll(id="doctor-body") as body:
            body.border_title = "doctor (Esc closes)"
            yield Static("running the checks... (a torch probe child starts; this takes a few seconds)",
                         id="doctor-result")
        yield Footer()

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
        self.app.post_message(DoctorFinished(checks))  # the log keeps the outcome, even if the screen is closed
        if not self.is_attached:
            return  # closed before the checks finished
        self.query_one("#doctor-body").border_subtitle = totals(checks)
        self.query_one("#doctor-result", Static).update(Group(totals_line(checks), checks_table(checks)))

    def _show_error(self, text: str) -> None:
        if not self.is_attached:
            return
        self.query_one("#doctor-result", Static).update(Text(f"the checks could not run: {text}", style="red"))

    def action_close(self) -> None:
        self.dismiss(None)
