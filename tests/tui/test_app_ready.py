"""Issue 38 item 4 in the workbench: `cardbench ready` is a launcher entry. Chosen and started (s), its phases reach
the launcher's run state and its lines the log, then its readiness table, verdict lines and bundle; s stops it the
way Ctrl+C does, so what was measured is still judged and bundled; a bad field is one line and nothing starts.

The child is the real command with torch-free stand-ins for its sub-runs (tests/children/ready_cli.py)."""
from __future__ import annotations

import json
import os
import time
import zipfile

import psutil
import pytest

from app_fakes import choose_workload
from paths import CHILDREN
from tui.workbench import ready_child
from tui.ready.readiness import Readiness
from tui.workbench.app import build_app


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{CHILDREN}{os.pathsep}{os.environ['PYTHONPATH']}")
    monkeypatch.setattr(ready_child, "ENTRY", "ready_cli")


async def _until(pilot, predicate, timeout=90.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.1)


def _log(app) -> str:
    return "\n".join(app.log_pane.lines_text)


async def _start_ready(app, pilot):
    await app.panes_built.wait()
    assert app.workload_names[-1] == "ready"   # after the workloads: it runs several of them
    await choose_workload(app, pilot, "ready")
    await pilot.press("s")
    await _until(pilot, lambda: app.ready_run.running or "cannot start" in _log(app), what="the start")


async def test_ready_from_the_launcher_shows_its_phases_table_verdicts_and_bundle(stand_in, runs_dir, tmp_path):
    app = build_app(runs_dir, start_sampler=False, export_dir=tmp_path / "out")
    (tmp_path / "out").mkdir()
    phases = []
    async with app.run_test(size=(120, 36)) as pilot:
        await _start_ready(app, pilot)
        while app.ready_run.running:
            if app.state.step and (app.state.step, app.state.total_steps, app.state.doing) not in phases:
                phases.append((app.state.step, app.state.total_steps, app.state.doing))
            await pilot.pause(0.05)
        log = _log(app)
        assert app.state.status == "ok" and app.state.workload == "ready"
        bundle, counts = app.ready_run.bundle, app.state.doing
    # the phases counted up on the launcher's state, out of the command's own count (the doctor, 4 steps, the
    # bundle; the stand-in has no doctor), each named
    assert phases and phases == sorted(phases) and phases[-1] == (5, 6, "report bundle")
    assert "cardbench: [2/6] Operator coverage scan (opscan)" in log
    assert "Readiness of tiny in fp32 on cpu (stand-in)" in log
    assert "PASS  cold start (to the first token): 41.5 s" in log
    assert f"report bundle: {bundle}" in log and "readiness ended: ok (exit 0)" in log
    # the table is said once the command ends: the last thing in the log, after the bundle's progress lines
    assert log.index("readiness ended") < log.index("Readiness of tiny") < log.index("PASS  cold start")
    assert counts.startswith("PASS ") and "N/A " in counts   # each verdict's count stays on the launcher
    with zipfile.ZipFile(bundle) as zf:
        assert any(n.endswith("/readiness.zh.md") for n in zf.namelist())
    assert len(list(runs_dir.glob("*/readiness.json"))) == 4


async def test_s_stops_ready_mid_step_and_what_was_measured_is_still_judged_and_bundled(stand_in, runs_dir,
                                                                                       tmp_path, monkeypatch):
    monkeypatch.setenv("READY_HOLD", "finetune")   # the third step runs until it is stopped
    app = build_app(runs_dir, start_sampler=False, export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _start_ready(app, pilot)
        await _until(pilot, lambda: app.state.step == 3, what="the fine-tune's phase")
        pid = app.ready_run.child.pid
        await pilot.pause(1.0)   # its steps are under way
        await pilot.press("s")
        await _until(pilot, lambda: not app.ready_run.running, what="the stopped end")
        log = _log(app)
        assert app.state.status == "stopped"
    assert "readiness ended: stopped (exit 130)" in log
    assert "not run: interrupted" in log   # the cold start, after the stop
    assert "N/A  loss agrees with float64 on the CPU: stopped before its result: interrupted" in log
    [kept] = {json.dumps(json.loads(p.read_text()), sort_keys=True) for p in runs_dir.glob("*/readiness.json")}
    rows = {row.question: row.verdict for row in Readiness.from_json(json.loads(kept)).rows}
    assert rows["fit"] == "PASS" and rows["ops"] == "PASS"   # measured before the stop: kept
    assert rows["cold_start"] == "N/A"
    assert list(tmp_path.glob("cardbench-report-*.zip"))
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


async def test_a_bad_field_is_one_line_and_nothing_starts(stand_in, runs_dir, tmp_path):
    app = build_app(runs_dir, start_sampler=False, export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        await choose_workload(app, pilot, "ready")
        app.launcher.form("ready").set_values({"model": "no-such-model", "budget": "15"})
        await pilot.press("s")
        await pilot.pause()
        assert not app.ready_run.running and app.state.status == "idle"
        [line] = [line for line in app.log_pane.lines_text if "cannot start readiness" in line]
        assert "no-such-model" in line and "neither a preset" in line
        app.launcher.form("ready").set_values({"model": "tiny", "budget": "0"})
        await pilot.press("s")
        await pilot.pause()
        assert not app.ready_run.running and "--budget must be more than 0" in _log(app)
        await pilot.press("D")   # detached is a workload's start: readiness says how it runs instead
        await pilot.pause()
        assert not app.ready_run.running and "readiness runs from s" in _log(app)
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


async def test_quitting_while_ready_runs_asks_then_stops_it(stand_in, runs_dir, tmp_path, monkeypatch):
    from tui.workbench.panes.confirm import Confirm

    monkeypatch.setenv("READY_HOLD", "llm")
    app = build_app(runs_dir, start_sampler=False, export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _start_ready(app, pilot)
        await _until(pilot, lambda: app.state.step == 1, what="the first step")
        pid = app.ready_run.child.pid
        await pilot.press("q")
        assert isinstance(app.screen, Confirm) and "ready is running" in app.screen.question
        await pilot.press("y")
    # asked to stop, it writes what it measured on its own, then ends
    deadline = time.monotonic() + 60
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert list(tmp_path.glob("cardbench-report-*.zip"))


def test_the_entry_offers_the_dtypes_the_steps_plan_and_reads_the_phases_progress_writes():
    import io

    from tui.headless.progress import Progress
    from tui.ready.steps import DTYPES
    from tui.workbench.ready_child import Phase, phase_of
    from tui.workbench.ready_entry import SPEC

    assert dict((p.key, p.choices) for p in SPEC.params)["dtype"] == ("auto", *DTYPES)
    said = io.StringIO()
    progress = Progress(phases=6, stream=said, tty=False)
    progress.say("step perf: fit, prefill, decode")
    progress.begin("LLM fine-tuning (finetune)")
    first, begun = said.getvalue().splitlines()
    assert phase_of(first) is None and phase_of(begun) == Phase(1, 6, "LLM fine-tuning (finetune)")
