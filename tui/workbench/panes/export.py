"""The workbench's export (`e`): the report bundle built off the UI thread, its progress in the log pane.

The bundle itself is `tui.report.export.export_bundle`, the same one the headless export writes; it is imported
at the first export, not at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from textual.worker import Worker

from workloads.errors import first_line


def export_in_background(app: Any, gather: Callable[[], Sequence[Path]], output_dir: Path) -> Worker[None]:
    """Write the bundle on a worker thread; ``app.log_pane`` says each stage, then where it went or why not.

    The thread finds the runs (``gather``) and learns their secrets from their files; only the screenshot is
    taken on the UI thread (it is the screen), with its fields redacted by what the thread learnt."""
    log = app.log_pane

    def export() -> None:
        def progress(text: Any) -> None:
            app.call_from_thread(log.say, f"export: {text}", "dim")

        try:
            from tui.report.export import ExportInputs, export_bundle  # at the first export, not at start-up
            from tui.redact import Redactor
            from tui.report.screen import live_screenshot

            run_dirs = list(gather())
            redactor = Redactor()
            for path in run_dirs:
                redactor.learn_run_dir(path)
            svg = app.call_from_thread(live_screenshot, app, redactor)
            from tui.trial.config import report_price

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

    return app.run_worker(export, name="export", group="export", description="export the report bundle",
                          exclusive=True, exit_on_error=False, thread=True)
