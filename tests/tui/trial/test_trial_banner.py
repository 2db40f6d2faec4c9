"""The trial's header and lead-time banner in a small app of its own, on a fake clock: a trial that ends in
three minutes shows the banner at the lead time, rings once, and its keys (and links) run export and backup."""

import asyncio

from app_fakes import trial_read
from textual.app import App

from tui import cli
from tui.workbench.panes.backup_worker import start_backup
from tui.workbench.panes.trial_banner import TrialBanner
from tui.trial import config as trial_config

T0 = 1_800_000_000.0


class FakeClock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


class BannerApp(App):
    """Binds e and b as the workbench does; counts what they ran and the bells."""

    BINDINGS = [("e", "export", "export"), ("b", "backup", "backup")]

    def __init__(self, banner: TrialBanner):
        super().__init__()
        self.banner = banner
        self.ran: list[str] = []
        self.bells = 0

    def compose(self):
        yield self.banner

    def action_export(self) -> None:
        self.ran.append("export")

    def action_backup(self) -> None:
        self.ran.append("backup")

    def bell(self) -> None:
        self.bells += 1


def _text(banner: TrialBanner) -> str:
    return str(banner.render())


def test_a_trial_set_by_the_command_three_minutes_from_the_end_shows_the_banner_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv(trial_config.ENV_VAR, str(tmp_path / "config.json"))
    monkeypatch.setitem(cli.COMMAND_MODULES, "trial", "tui.cli.trial")
    assert cli.main(["trial", "--hours", "0.05", "--price-per-hour", "6", "--currency", "CNY"]) == 0
    kept = trial_config.load()
    assert kept.ends - kept.started == 180
    clock = FakeClock(kept.started)   # the moment it was set; the banner reads the file the command wrote
    app = BannerApp(TrialBanner(clock=clock, refresh_s=3600, id="trial"))

    async def go():
        async with app.run_test(size=(100, 10)) as pilot:
            await trial_read(pilot, app.banner)
            text = _text(app.banner)
            assert app.banner.display
            assert "trial: 3 min 0 s left" in text and "0.00 CNY so far at 6.00 CNY/h list price" in text
            assert "!! the trial ends in 3 min 0 s: export the report now (e), back up now (b)" in text
            assert app.bells == 1
            clock.t += 90
            app.banner.tick()
            await pilot.pause()
            text = _text(app.banner)
            assert "ends in 1 min 30 s" in text and "0.15 CNY so far" in text   # 90 s at 6 CNY/h
            assert app.bells == 1   # once per lead time, not every tick
            await pilot.press("e")
            await pilot.press("b")
            assert app.ran == ["export", "backup"]

    asyncio.run(go())


def test_the_banner_comes_at_the_lead_time_not_before_and_its_links_run_the_actions():
    clock = FakeClock(T0)
    config = trial_config.TrialConfig(ends=T0 + 180, started=T0 - 3600, price_per_hour=2.5, lead_hours=2 / 60)
    app = BannerApp(TrialBanner(clock=clock, load=lambda: config, refresh_s=3600, id="trial"))

    async def go():
        async with app.run_test(size=(100, 10)) as pilot:
            await trial_read(pilot, app.banner)
            text = _text(app.banner)
            assert "trial: 3 min 0 s left" in text and "2.50 USD so far" in text
            assert "!!" not in text and app.bells == 0
            assert not app.banner.has_class("-lead")
            clock.t = T0 + 59
            app.banner.tick()
            await pilot.pause()
            assert "!!" not in _text(app.banner) and app.bells == 0   # 2 min 1 s left: not yet
            clock.t = T0 + 61
            app.banner.tick()
            await pilot.pause()
            text = _text(app.banner)
            assert "!! the trial ends in 1 min 59 s: export the report now (e), back up now (b)" in text
            assert app.bells == 1 and app.banner.has_class("-lead")
            # the links in the banner's second line run the same actions as the keys
            banner_line = text.splitlines()[1]
            await pilot.click("#trial", offset=(1 + banner_line.index("(b)") + 1, 1))
            await pilot.click("#trial", offset=(1 + banner_line.index("(e)") + 1, 1))
            assert app.ran == ["backup", "export"]
            clock.t = T0 + 200
            app.banner.tick()
            await pilot.pause()
            text = _text(app.banner)
            assert "trial: ENDED at" in text and "!! the trial has ENDED" in text
            assert "2.62 USD so far" in text   # counted up to the end (3,780 s at 2.50/h: 2.625), not past it
            assert app.bells == 1

    asyncio.run(go())


def test_no_trial_set_hides_the_widget():
    app = BannerApp(TrialBanner(clock=FakeClock(T0), load=trial_config.TrialConfig, refresh_s=3600, id="trial"))

    async def go():
        async with app.run_test(size=(80, 10)) as pilot:
            await trial_read(pilot, app.banner)   # read, and no trial in it
            assert not app.banner.display and app.bells == 0

    asyncio.run(go())


class WorkbenchLike(BannerApp):
    """b runs the workbench's backup action (tui.workbench.panes.backup_worker), its lines into a list as the log."""

    def __init__(self, banner: TrialBanner, runs_root):
        super().__init__(banner)
        self.runs_root = runs_root
        self.said: list[str] = []

    def say(self, text, style=""):
        self.said.append(str(text))

    def action_backup(self) -> None:
        start_backup(self, self.runs_root, self.say, report_dirs=[])


def test_b_from_the_banner_backs_up_to_the_kept_destination(tmp_path, monkeypatch):
    monkeypatch.setenv(trial_config.ENV_VAR, str(tmp_path / "config.json"))
    runs = tmp_path / "runs" / "r1"
    runs.mkdir(parents=True)
    (runs / "events.jsonl").write_text('{"type": "start"}\n')
    clock = FakeClock(T0)
    app = WorkbenchLike(TrialBanner(clock=clock, refresh_s=3600, id="trial"), runs.parent)

    async def go():
        async with app.run_test(size=(100, 10)) as pilot:
            await pilot.press("b")
            await app.workers.wait_for_complete()
            assert app.said == ["no backup destination: `cardbench trial --backup-dest DEST` (a folder or "
                                "remote:bucket/prefix) sets the one b uses"]
            trial_config.save(trial_config.TrialConfig(ends=T0 + 180, backup_dest=str(tmp_path / "bk")))
            app.banner.reload()
            await pilot.pause()
            assert "back up now (b)" in _text(app.banner)
            await pilot.press("b")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.said[1] == f"backing up runs, checkpoints and report bundles to {tmp_path / 'bk'}..."
            assert "backup: 1 file sent (18 B), 0 unchanged not sent (0 B); 1 file, 18 B in all" in app.said
            assert (tmp_path / "bk" / "LATEST").is_file()

    asyncio.run(go())


def test_the_periodic_re_read_of_the_settings_is_off_the_ui_thread():
    # issue 23.3: every 15 ticks the banner re-read the config file on the UI thread
    import threading

    from tui.workbench.panes.trial_banner import RELOAD_EVERY

    readers: list[str] = []
    later = trial_config.TrialConfig(ends=T0 + 7200, started=T0 - 3600, price_per_hour=2.5, lead_hours=1)

    def load():
        readers.append(threading.current_thread().name)
        return trial_config.TrialConfig() if len(readers) == 1 else later

    app = BannerApp(TrialBanner(clock=FakeClock(T0), load=load, refresh_s=3600, id="trial"))

    async def go():
        async with app.run_test(size=(100, 10)) as pilot:
            await trial_read(pilot, app.banner)
            assert not app.banner.display     # no trial yet (read once after the first frame)
            for _ in range(RELOAD_EVERY + 1):
                app.banner.tick()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert len(readers) == 2 and readers[1] != threading.main_thread().name
            assert app.banner.display and "trial: 2 h 0 min left" in _text(app.banner)   # `cardbench trial` reached it

    asyncio.run(go())


def test_a_tick_before_the_first_read_reads_the_settings():
    """The read one refresh after the first frame may not come (an app that never refreshes): the next tick reads."""
    config = trial_config.TrialConfig(ends=T0 + 7200, started=T0 - 3600, price_per_hour=2.5, lead_hours=1)
    app = BannerApp(TrialBanner(clock=FakeClock(T0), load=lambda: config, refresh_s=3600, id="trial"))

    async def go():
        async with app.run_test(size=(100, 10)) as pilot:
            await trial_read(pilot, app.banner)
            app.banner.config = None      # as if the read after the first frame had not come
            app.banner.display = False
            app.banner.tick()
            await pilot.pause()
            assert app.banner.config is config and app.banner.display

    asyncio.run(go())
