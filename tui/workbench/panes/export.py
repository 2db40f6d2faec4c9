"""The workbench's export (`e`): the runs listed and read off the UI thread, the user's choice of them
(`tui.workbench.panes.export_choice`), then the report bundle built off the UI thread, its progress in the log pane.

The bundle itself is `tui.report.export.export_bundle`, the same one the headless export writes; it is imported
at the first export, not at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from textual.worker import Worker

from tui.workbench.view.export_runs import ExportRow
from workloads.errors import first_line

GROUP = "export"


def choose_and_export(app: Any, gather: Callable[[], Sequence[Path]], output_dir: Path) -> Worker[None] | None:
    """Read the runs ``gather`` names on a worker thread, offer them in `ExportChoice`, export the checked ones.

    Escape writes nothing; a choice already on the screen is not offered twice."""
    from tui.workbench.panes.export_choice import ExportChoice

    log = app.log_pane
    if isinstance(app.screen, ExportChoice):
        return None

    def listing() -> None:
        from tui.workbench.view.export_runs import export_rows

        try:
            rows = export_rows(list(gather()))
        except Exception as exc:  # noqa: BLE001 - an unreadable runs dir is said, the workbench stays up
            app.call_from_thread(log.say, f"export failed: {first_line(exc, typed=True)}", "bold red")
            return
        app.call_from_thread(offer, rows)

    def offer(rows: list[ExportRow]) -> None:
        if not rows:
            log.say("export: no run in this session, none loaded and none on disk; nothing written", "yellow")
            return
        if not isinstance(app.screen, ExportChoice):
            app.push_screen(ExportChoice(rows), lambda chosen: chose(rows, chosen))

    def chose(rows: list[ExportRow], chosen: list[Path] | None) -> None:
        if chosen is None:
            log.say("export cancelled: nothing written", "dim")
            return
        picked = set(chosen)
        export_in_background(app, [row for row in rows if row.path in picked], output_dir)

    log.say("export: reading the runs...", "dim")
    return app.run_worker(listing, name="export-runs", group=GROUP, description="read the runs to export",
                          exclusive=True, exit_on_error=False, thread=True)


def export_in_background(app: Any, rows: Sequence[ExportRow], output_dir: Path) -> Worker[None]:
    """Write the bundle of ``rows`` on a worker thread; ``app.log_pane`` says each stage, then where it went or why
    not.

    The thread learns the runs' secrets from their files; only the screenshot is taken on the UI thread (it is the
    screen), with its fields redacted by what the thread learnt, and with plots that have data
    (`tui.workbench.panes.export_plots`)."""
    log = app.log_pane
    rows = list(rows)

    def export() -> None:
        def progress(text: Any) -> None:
            app.call_from_thread(log.say, f"export: {text}", "dim")

        try:
            from tui.report.export import ExportInputs, export_bundle  # at the first export, not at start-up
            from tui.redact import Redactor
            from tui.trial.config import report_price
            from tui.workbench.panes.export_plots import screenshot_with_plots

            run_dirs = [row.path for row in rows]
            redactor = Redactor()
            for path in run_dirs:
                redactor.learn_run_dir(path)
            svg = screenshot_with_plots(app, redactor, rows)
            # the trial's kept price, as the headless export uses it (read here, off the UI thread)
            price, currency, price_from = report_price(None, "USD")
            path = export_bundle(ExportInputs(run_dirs, output_dir, screenshot_svg=svg, progress=progress,
                                              price_per_hour=price, currency=currency, price_from=price_from))
        except Exception as exc:  # noqa: BLE001 - a failed export is reported, the workbench stays up
            app.call_from_thread(log.say, f"export failed: {first_line(exc, typed=True)}", "bold red")
            return
        app.call_from_thread(exported, path)

    def exported(path: Path) -> None:
        log.say(f"report bundle written to {path}", "bold green")
        app.notify(str(path), title="report exported")

    log.say(f"exporting the report bundle of {len(rows)} run{'s' if len(rows) != 1 else ''}...", "bold")
    return app.run_worker(export, name="export", group=GROUP, description="export the report bundle",
                          exclusive=True, exit_on_error=False, thread=True)
