"""Key e lets the user choose the runs of the report bundle (issue 36.6): the finished ones checked, an aborted
one only when picked, Escape writes nothing; and the bundle's screenshot shows a run's loss and throughput when
the screen's own run has none (GPT-2's decode), the user's plots back right after."""

from __future__ import annotations

import math

import pytest
from report_runs import T0, generate_run, resnet_run
from test_app import SIZE, make_app
from textual.widgets import SelectionList

import tui.report.export
from tui.store import RunStore, load_run
from tui.workbench.panes.export_choice import NONE_CHECKED, ExportChoice
from tui.workbench.view.export_runs import export_row, plots_source
from workloads import protocol


def stopped_run(store: RunStore):
    """A resnet50 run the user stopped after two steps: 'stopped', no result, no headline."""
    run = store.create("resnet50", ["--steps", "100"])
    run.append(protocol.Start(t=T0 + 40, workload="resnet50", device="Fake GPU 80GB", config={"batch_size": 32}))
    for i in (1, 2):
        run.append(protocol.Step(t=T0 + 40 + i, step=i, loss=6.9 * math.exp(-i / 8), throughput=400.0,
                                 unit="images/s", step_s=0.08))
    run.append(protocol.End(t=T0 + 43, status="stopped", exit_code=-15))
    run.close()
    return run.path


@pytest.fixture
def session(runs_dir):
    """A session's three runs, oldest first: a finished ResNet-50, an aborted one, a finished GPT-2 decode."""
    store = RunStore(runs_dir)
    return [resnet_run(store, fallback=False), stopped_run(store), generate_run(store)]


@pytest.fixture
def bundles(monkeypatch):
    """Every `ExportInputs` the workbench hands the bundle writer (which writes nothing here)."""
    seen: list = []

    def export_bundle(inputs):
        seen.append(inputs)
        return inputs.output_dir / "cardbench-report.zip"

    monkeypatch.setattr(tui.report.export, "export_bundle", export_bundle)   # imported by the worker at export
    return seen


async def open_choice(app, pilot, runs) -> ExportChoice:
    await app.panes_built.wait()
    app.session.runs.extend(runs)
    await pilot.press("e")
    for _ in range(200):
        if isinstance(app.screen, ExportChoice):
            return app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"no choice of runs after e; the log: {app.log_pane.lines_text[-3:]}")


async def export_chosen(app, pilot) -> None:
    await pilot.press("enter")
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_e_checks_the_finished_runs_and_leaves_the_aborted_one_out(runs_dir, session, bundles, tmp_path):
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        choice = await open_choice(app, pilot, session)
        listing = choice.query_one(SelectionList)
        assert [str(listing.get_option_at_index(i).prompt).split()[:2] for i in range(3)] == [
            ["resnet50", "ok"], ["resnet50", "stopped"], ["generate", "ok"]]
        assert "950 images/s" in str(listing.get_option_at_index(0).prompt)
        assert sorted(listing.selected) == [0, 2]
        assert "2 of 3 runs checked" in str(choice.query_one("#export-count").render())
        await export_chosen(app, pilot)
        assert not isinstance(app.screen, ExportChoice)
    assert len(bundles) == 1 and bundles[0].run_dirs == (session[0], session[2])


async def test_the_runs_exported_are_exactly_those_checked(runs_dir, session, bundles, tmp_path):
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await open_choice(app, pilot, session)
        await pilot.press("space", "down", "space")   # the finished ResNet-50 out, the aborted one in
        await export_chosen(app, pilot)
    assert [inputs.run_dirs for inputs in bundles] == [(session[1], session[2])]


async def test_escape_writes_nothing(runs_dir, session, bundles, tmp_path):
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await open_choice(app, pilot, session)
        await pilot.press("escape")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert not isinstance(app.screen, ExportChoice)
        assert "export cancelled: nothing written" in app.log_pane.lines_text[-1]
    assert bundles == [] and not (tmp_path / "out").exists()


async def test_none_checked_says_so_and_exports_nothing(runs_dir, session, bundles, tmp_path):
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        choice = await open_choice(app, pilot, session)
        choice.query_one(SelectionList).deselect_all()
        await export_chosen(app, pilot)
        assert app.screen is choice   # still choosing
        assert NONE_CHECKED in str(choice.query_one("#export-count").render())
    assert bundles == []


async def test_the_screenshot_shows_a_run_with_loss_when_the_screen_shows_gpt2(runs_dir, session, bundles, tmp_path):
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.load_records([load_run(session[2])])   # the screen shows the GPT-2 decode: throughput, no loss
        await pilot.pause()
        loss_plot = app.plots.plots[0]
        assert not loss_plot.has_data()
        await open_choice(app, pilot, session)
        await export_chosen(app, pilot)
        svg = bundles[0].screenshot_svg.replace("&#160;", " ")
        assert "resnet50 loss" in svg and "loss, from disk" in svg and "none yet" not in svg
        assert any(f"loss and throughput are run {session[0].name}'s" in line for line in app.log_pane.lines_text)
        # the user's screen is back: the GPT-2 run's plots, under their own titles
        await pilot.pause(0.6)
        assert list(app.history.runs) == [session[2].name]
        assert loss_plot.title == "loss" and not loss_plot.has_data()
        assert app.plots.plots[1].has_data() and app.plots.plots[1].title == "throughput"


async def test_a_run_started_while_the_screenshot_is_drawn_keeps_its_plots(runs_dir, session, bundles, tmp_path,
                                                                           monkeypatch):
    import tui.report.screen

    def drawn_while_a_run_starts(app, redactor=None):
        app.history.drop_runs()   # what WorkloadRun.start does, should s come between two repaints
        app.history.run("20261206-220000-resnet50-new", label="resnet50")
        return "<svg></svg>"

    monkeypatch.setattr(tui.report.screen, "live_screenshot", drawn_while_a_run_starts)
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.load_records([load_run(session[2])])
        await open_choice(app, pilot, session)
        await export_chosen(app, pilot)
        assert list(app.history.runs) == ["20261206-220000-resnet50-new"]
    assert bundles[0].screenshot_svg == "<svg></svg>"


async def test_a_screen_with_plots_is_drawn_as_it_is(runs_dir, session, bundles, tmp_path):
    app = make_app(runs_dir, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.load_records([load_run(session[0])])
        await pilot.pause()
        await open_choice(app, pilot, session)
        await export_chosen(app, pilot)
    svg = bundles[0].screenshot_svg.replace("&#160;", " ")
    assert "resnet50 loss" in svg and "loss, from disk" not in svg


def test_the_plots_source_is_the_newest_run_that_fills_more_plots(runs_dir, session):
    rows = [export_row(path) for path in session]
    assert [row.plots for row in rows] == [2, 2, 1]   # loss and throughput; the stopped one too; GPT-2 no loss
    assert plots_source(rows, on_screen=1) == session[0]   # the finished one before the newer aborted one
    assert plots_source(rows[1:], on_screen=0) == session[1]
    assert plots_source(rows, on_screen=2) is None
    assert plots_source([rows[2]], on_screen=1) is None   # nothing fills more than the GPT-2 on screen


def test_a_run_that_cannot_be_read_is_a_row_not_an_error(tmp_path):
    row = export_row(tmp_path / "20261206-000000-resnet50-dead")
    assert (row.workload, row.status, row.headline, row.finished) == ("resnet50", "unreadable", "N/A", False)
    assert "no such directory" in row.why
