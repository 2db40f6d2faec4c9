"""Start the workbench headless on whatever Textual this interpreter has (CI runs it on the oldest one pyproject
declares): the app builds, draws its first frame, takes a key, and draws the trial banner (textual.content and
textual.markup, the newest Textual API the workbench uses). Exit 0 and one line when it does; a traceback when not.

    python .ci/textual_floor.py
"""
from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout, not an installed copy


async def main() -> str:
    import textual

    from tui.workbench.app import build_app
    from tui.workbench.panes.trial_banner import _content

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CARDBENCH_CONFIG"] = str(Path(tmp) / "config.json")   # no user's trial or price
        app = build_app(Path(tmp) / "runs", start_sampler=False, clock=lambda: 1_790_000_000.0)
        async with app.run_test(size=(120, 36)) as pilot:
            await asyncio.wait_for(app.panes_built.wait(), 60)
            await pilot.pause()
            first = app.selected_workload
            await pilot.press("2")
            await pilot.pause()
            assert app.selected_workload != first, "the number keys did not switch the workload"
            assert "cardbench" in app.export_screenshot().lower()
        assert _content(("a trial [ends] soon", "line two")).plain.startswith("a trial [ends] soon")
    return textual.__version__ if hasattr(textual, "__version__") else "?"


if __name__ == "__main__":
    started = time.monotonic()
    version = asyncio.run(main())
    print(f"workbench started headless on Textual {version} in {time.monotonic() - started:.1f} s")
