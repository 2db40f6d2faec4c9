"""The workbench's screen rendered off-screen, for a report exported without a terminal.

    export_bundle(run_dirs, out, screenshot=app_screenshot)

The report (`tui.report`) is UI-free: it takes the screenshot as an SVG or as a
callable like :func:`app_screenshot` and never imports Textual. This module is the
one Textual user outside `tui/app.py` and `tui/panes/`. It imports the app only
inside its functions, so importing it stays cheap and works where Textual is
missing (then :func:`app_screenshot` says why, and the report draws its text screen).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Sequence

__all__ = ["app_screenshot", "render_screenshot_svg"]


async def render_screenshot_svg(records: Sequence[Any], sample: Any = None, size: tuple[int, int] = (120, 36),
                                *, clock: Callable[[], float] | None = None) -> str:
    """The workbench's main screen as SVG, off-screen, showing the given runs (for the headless report)."""
    from tui.app import build_app

    records = list(records)
    app = build_app(records[-1].path.parent if records else None, start_sampler=False, clock=clock)
    async with app.run_test(size=size) as pilot:
        await app.panes_built.wait()
        app.load_records(list(records))
        if sample is not None:
            app.post_sample(sample)
        await pilot.pause()
        app.plots.refresh_plots()
        await pilot.pause()
        return app.export_screenshot()


def app_screenshot(records: Sequence[Any], sample: Any = None, timeout: float = 60.0) -> tuple[str | None, str | None]:
    """The workbench's screen rendered off-screen: (svg, None), or (None, why it could not be)."""
    try:
        import tui.app  # noqa: F401 - only to learn, before rendering, whether the app can be built here
    except Exception as exc:  # noqa: BLE001 - an app that does not import must not cost the report
        return None, f"the workbench screen is not available ({type(exc).__name__}: {exc})"

    async def render() -> str:
        return await asyncio.wait_for(render_screenshot_svg(list(records), sample), timeout)

    try:
        return asyncio.run(render()), None
    except Exception as exc:  # noqa: BLE001
        return None, f"the workbench screen could not be drawn off-screen ({type(exc).__name__}: {exc})"
