"""The workbench's screen rendered off-screen, for a report exported without a terminal.

    export_bundle(run_dirs, out, screenshot=app_screenshot)

What it draws is a re-drawing from the runs on disk, minutes or hours after they ran (`cardbench export
--run` after a dropped session), and it says so: the window title reads "re-drawn from the run on
disk" with the runs' own times (`tui.report.run_times`), the log lines carry their events' times, and the
devices show the run's last telemetry sample with its time, not a reading taken at export.

The report (`tui.report`) is UI-free: it takes the screenshot as an SVG or as a
callable like :func:`app_screenshot` and never imports Textual. This module is the
one Textual user outside `tui/workbench/app.py` and `tui/workbench/panes/`. It imports the app only
inside its functions, so importing it stays cheap and works where Textual is
missing (then :func:`app_screenshot` says why, and the report draws its text screen).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Sequence

from workloads.facts.formatting import utc_clock
from tui.report.run_times import runs_title

__all__ = ["app_screenshot", "render_screenshot_svg"]


async def render_screenshot_svg(records: Sequence[Any], sample: Any = None, size: tuple[int, int] = (120, 36),
                                *, clock: Callable[[], float] | None = None) -> str:
    """The workbench's main screen as SVG, off-screen, re-drawn from the given runs (for the headless report).

    The devices show the runs' last telemetry sample; ``sample`` (a reading taken now) only when they
    recorded none, and then the devices' title says it is a reading at export.
    """
    from tui.workbench.app import build_app

    records = list(records)
    app = build_app(records[-1].path.parent if records else None, start_sampler=False, clock=clock)
    async with app.run_test(size=size) as pilot:
        await app.panes_built.wait()
        app.log_pane.clear()   # its start-up line is stamped with the time of this drawing, not of the runs
        last = last_sample(records)
        shown = last if last is not None else sample
        if shown is not None:
            # the devices' rows first, and the layout settled around them: the plots pane then knows it shows one
            # plot, and the runs' other series are never built (`tui.workbench.history`: built when first read)
            app.devices.sample = shown
            await pilot.pause()
        app.load_records(records)
        if last is not None:
            app.post_sample(last)
            app.devices.when = f"run's last sample {utc_clock(last.t)} UTC"
        elif sample is not None:
            app.post_sample(sample)
            app.devices.when = f"read at export {utc_clock(sample.t)} UTC"
        await pilot.pause()
        app.plots.refresh_plots()
        await pilot.pause()
        return app.export_screenshot(title=runs_title(records) if records else "cardbench: no runs")


def last_sample(records: Sequence[Any]) -> Any:
    """The newest telemetry sample the runs recorded (a torn line skipped), or None."""
    from tui.telemetry.sample import Sample

    from tui.store.telemetry import Telemetry

    for record in reversed(records):
        telemetry = Telemetry.of(record.telemetry)
        if not len(telemetry):
            continue
        # the whole line (processes, clocks' maxima... the columns keep less); where its process list is not
        # [[pid, name, bytes], ...] (the sample check leaves that field to this reader), the columns' last reading
        for newest in (telemetry.newest(), telemetry.sample(-1)):
            try:
                return Sample.from_dict(newest)
            except (KeyError, TypeError, ValueError, RecursionError):
                continue
    return None


def app_screenshot(records: Sequence[Any], sample: Any = None, timeout: float = 60.0) -> tuple[str | None, str | None]:
    """The workbench's screen rendered off-screen: (svg, None), or (None, why it could not be)."""
    try:
        import tui.workbench.app  # noqa: F401 - only to learn, before rendering, whether the app can be built here
    except Exception as exc:  # noqa: BLE001 - an app that does not import must not cost the report
        return None, f"the workbench screen is not available ({type(exc).__name__}: {exc})"

    async def render() -> str:
        return await asyncio.wait_for(render_screenshot_svg(list(records), sample), timeout)

    try:
        return asyncio.run(render()), None
    except Exception as exc:  # noqa: BLE001
        return None, f"the workbench screen could not be drawn off-screen ({type(exc).__name__}: {exc})"
