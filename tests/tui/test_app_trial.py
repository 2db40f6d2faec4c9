"""The workbench itself with a trial ending in 3 minutes: the banner is on screen, b backs up, e exports."""

from __future__ import annotations

import asyncio

from app_fakes import FakeTelemetry, trial_read
from tui import cli
from tui.workbench.app import build_app


def test_a_trial_near_its_end_shows_the_banner_and_its_keys_work(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    (runs / "r1").mkdir(parents=True)
    (runs / "r1" / "events.jsonl").write_text('{"event": "start", "t": 1.0}\n')
    assert cli.main(["trial", "--hours", "0.05", "--price-per-hour", "6", "--currency", "CNY",
                     "--backup-dest", str(tmp_path / "bk")]) == 0
    exports: list[list] = []
    # the app imports the export at the first e (not at start-up): patched where it lives
    monkeypatch.setattr("tui.workbench.panes.export.choose_and_export", lambda app, gather, out: exports.append(gather()))
    app = build_app(str(runs), start_sampler=False, telemetry_source=FakeTelemetry, export_dir=tmp_path / "out")

    async def go():
        async with app.run_test(size=(120, 36)) as pilot:
            await trial_read(pilot, app.trial_banner)
            banner = str(app.trial_banner.render())
            assert app.trial_banner.display and "trial: 2 min" in banner and "6.00 CNY/h list price" in banner
            assert "export the report now (e), back up now (b)" in banner
            await pilot.press("b")
            for _ in range(200):
                if (tmp_path / "bk" / "LATEST").is_file():
                    break
                await pilot.pause(0.05)
            await app.workers.wait_for_complete()
            assert (tmp_path / "bk" / "LATEST").is_file()
            await pilot.press("e")
            await pilot.pause()
            assert len(exports) == 1

    asyncio.run(go())


def test_no_trial_no_banner(tmp_path):
    app = build_app(str(tmp_path / "runs"), start_sampler=False, telemetry_source=FakeTelemetry)

    async def go():
        async with app.run_test(size=(120, 36)) as pilot:
            await trial_read(pilot, app.trial_banner)   # read, and no trial in it
            assert not app.trial_banner.display

    asyncio.run(go())
