"""A background task that fails is said on the log (issue 23.3: seven workers ran with exit_on_error=False and no
handler), and a failed workload consumer ends the run's 'running' state."""

from __future__ import annotations

from test_app import SIZE, make_app

from tui.workbench.view.run_state import RunState


async def test_a_failed_worker_is_said_and_a_failed_consumer_ends_running(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.state = RunState(workload="resnet50", run_id="r1", status="running")

        def broken() -> None:
            raise OSError(5, "Input/output error")

        app.run_worker(broken, thread=True, group="workload", description="workload events", exit_on_error=False)
        for _ in range(50):
            await pilot.pause(0.05)
            if app.state.status == "failed":
                break
        assert app.state.status == "failed"
        assert any("workload events failed: OSError: [Errno 5] Input/output error" in line
                   for line in app.log_pane.lines_text)
        assert "FAILED" in app.launcher.query_one("#run-state").render().plain
        assert app.is_running   # the workbench stays up


async def test_the_attached_run_is_read_off_the_ui_thread(runs_dir, monkeypatch):
    # issue 23.3: the 0.5 s follow timer read the attached run's files on the UI thread
    import threading

    from tui.store.follow import AttachedRun

    readers: list[str] = []

    def poll(self):
        readers.append(threading.current_thread().name)
        return [], []

    monkeypatch.setattr(AttachedRun, "poll", poll)
    monkeypatch.setattr(AttachedRun, "following", property(lambda self: True))
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.runs_in_progress.attached = AttachedRun.__new__(AttachedRun)
        app.runs_in_progress._follow()
        for _ in range(40):
            await pilot.pause(0.05)
            if readers and not app.runs_in_progress.polling:
                break
        assert readers and threading.main_thread().name not in readers
        assert not app.runs_in_progress.polling   # the read came back: the next tick reads again
        app.runs_in_progress.attached = None


async def test_r_lists_the_runs_in_progress_off_the_ui_thread(runs_dir, monkeypatch):
    import threading

    import tui.store.live
    from tui.workbench.panes.live_runs import LiveRunsScreen

    readers: list[str] = []

    def listing(root):
        readers.append(threading.current_thread().name)
        return []

    monkeypatch.setattr(tui.store.live, "live_runs", listing)   # imported by the app at the first r
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("r")
        for _ in range(40):
            await pilot.pause(0.05)
            if isinstance(app.screen, LiveRunsScreen):
                break
        assert isinstance(app.screen, LiveRunsScreen)
        assert readers and threading.main_thread().name not in readers


async def test_e_lists_the_runs_and_learns_their_secrets_off_the_ui_thread(runs_dir, tmp_path, monkeypatch):
    # issue 23.3: part of e (the runs dir listed, each run's config read for its secrets) ran on the UI thread
    import threading

    import tui.report.export
    import tui.workbench.view.export_runs
    from tui.redact import Redactor

    readers: list[str] = []
    bundles: list[str] = []
    real_learn = Redactor.learn_run_dir

    def listing(store, session_runs, loaded):
        readers.append(threading.current_thread().name)
        return [runs_dir / "r1"]

    def learn(self, path):
        readers.append(threading.current_thread().name)
        return real_learn(self, path)

    (runs_dir / "r1").mkdir(parents=True)
    (runs_dir / "r1" / "config.json").write_text('{"workload": "resnet50", "args": ["--data", "/tmp/x"]}')
    monkeypatch.setattr(tui.workbench.view.export_runs, "report_run_dirs", listing)   # imported by the app at the first e
    monkeypatch.setattr(Redactor, "learn_run_dir", learn)
    monkeypatch.setattr(tui.report.export, "export_bundle",
                        lambda inputs: bundles.append(inputs.screenshot_svg) or inputs.output_dir / "x.zip")
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("e")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("space", "enter")   # the run never ended: unchecked unless picked (ExportChoice)
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert len(readers) == 2 and threading.main_thread().name not in readers
    assert bundles and bundles[0].startswith("<svg")
