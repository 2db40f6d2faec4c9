"""The live screen's screenshot for the report bundle (key e), with loss and throughput plots that have data.

The screen's own run may have none to show: a GPT-2 decode reports no loss, a workbench just started shows no run.
Then, while the screenshot is taken, the loss and throughput plots show the exported run that fills more of them
(`tui.workbench.view.export_runs.plots_source`), read from disk; their titles and a log line say so; and the user's
own plots are back right after. The devices, launcher and log stay the user's.

    svg = screenshot_with_plots(app, redactor, rows)    # from a worker thread, never the UI thread
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Sequence

from tui.redact import Redactor
from tui.workbench.view.export_runs import ExportRow, plots_source, record_history, step_plots

FROM_DISK = "from disk"
REFRESH_WAIT_S = 5.0   # a screen that does not repaint in this time is drawn as it is


def screenshot_with_plots(app: Any, redactor: Redactor, rows: Sequence[ExportRow]) -> str:
    """The screen as SVG, its fields redacted, its step plots those of a run that has them (see the module).

    Called from a worker thread: the chosen run is read here; only the drawing runs on the UI thread."""
    from tui.report.screen import live_screenshot
    from tui.store import load_run

    source = plots_source(rows, app.call_from_thread(lambda: step_plots(app.history)))
    if source is None:
        return app.call_from_thread(live_screenshot, app, redactor)
    runs = record_history(load_run(source)).runs
    return app.call_from_thread(_drawn_with, app, redactor, runs, source)


async def _drawn_with(app: Any, redactor: Redactor, runs: dict[str, Any], source: Path) -> str:
    """The screenshot with ``runs`` in the history's place for the plots, then the history's own again."""
    from tui.report.screen import live_screenshot
    from tui.workbench.view.snapshot import build_snapshot

    history, pane = app.history, app.plots
    kept, step_plots_shown = history.runs, pane.plots[:2]
    titles, swapped = [plot.title for plot in step_plots_shown], set(runs)
    # a poll meanwhile builds its snapshot from the same history: it shows the same plots, never half of each
    history.runs = runs
    try:
        for plot, title in zip(step_plots_shown, titles):
            plot.title = f"{title}, {FROM_DISK}"
            plot.refresh()
        app.log_pane.say(f"export: the screenshot's loss and throughput are run {source.name}'s, read from disk "
                         f"(the screen's own had less to show)", "dim")
        wanted, first_with_data = pane.wanted()
        pane.show(build_snapshot(history, app.state, app.latest_sample, wanted=wanted,
                                 first_with_data=first_with_data))
        await _repainted(app)
        return live_screenshot(app, redactor)
    finally:
        # a run started meanwhile (s, between two repaints) dropped the screen's runs for its own: those stay
        started = {key: series for key, series in history.runs.items() if key not in swapped}
        history.runs = started or kept
        for plot, title in zip(step_plots_shown, titles):
            plot.title = title
            plot.refresh()
        app.show_state()   # the next poll draws the user's own plots again


async def _repainted(app: Any) -> None:
    """Wait for the screen's next two refreshes (the layout a pane of one plot may change, then its paint)."""
    loop = asyncio.get_running_loop()
    for _ in range(2):
        done = loop.create_future()
        app.call_after_refresh(lambda future=done: future.done() or future.set_result(None))
        try:
            await asyncio.wait_for(done, REFRESH_WAIT_S)
        except asyncio.TimeoutError:
            return
