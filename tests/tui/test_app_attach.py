"""Issue 13 item 2 in the workbench: a run started detached is listed (r), attached to (its history from disk,
then its new steps), stopped (s, confirmed), and no process is left; a run the workbench starts detached (D)
goes on after it quits."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil
import pytest

from app_fakes import choose_workload
from paths import CHILDREN
from tui import detach
from tui.app import build_app
from tui.panes.live_runs import LiveRunsScreen
from tui.store.live import LIVE_FILE, live_runs, read_live, stop_live
from tui.store import load_run
from workloads import registry


@pytest.fixture
def tick(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{CHILDREN}{os.pathsep}{os.environ['PYTHONPATH']}")
    monkeypatch.setattr(detach, "ENTRY", "tick_cli")
    sys.path.insert(0, str(CHILDREN))
    try:
        from tick_cli import SPEC
    finally:
        sys.path.remove(str(CHILDREN))
    with registry.registered(SPEC):
        yield SPEC


def _steps(run_dir) -> int:
    return sum('"step"' in line for line in (run_dir / "events.jsonl").read_text().splitlines())


async def _until(pilot, predicate, timeout=60.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.1)


async def _start_tick_by(pilot, app, key: str):
    """Choose the tick workload, press ``key``, and wait until the workbench follows the detached run's steps."""
    await app.panes_built.wait()
    await choose_workload(app, pilot, "tick")
    await pilot.press(key)
    await _until(pilot, lambda: app.attached is not None and app.state.step, what="the detached run's steps")
    return app.attached.live


def _gone(*pids: int) -> bool:
    return not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in pids)


async def test_a_new_workbench_lists_attaches_to_and_stops_a_detached_run(tick, runs_dir):
    done = subprocess.run([sys.executable, "-m", "tick_cli", "run", "tick", "--delay", "0.1", "--runs-dir",
                           str(runs_dir), "--detach"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [live] = live_runs(runs_dir)
    # a run that crashed long ago left its pid file: not in progress, not listed
    stale = runs_dir / "20260101-000000-tick-dead"
    stale.mkdir()
    (stale / "events.jsonl").write_text("")
    (stale / LIVE_FILE).write_text(json.dumps({"pid": 1, "pgid": 1, "started": 0.0, "host": os.uname().nodename,
                                               "detached": True, "workload": "tick"}))
    deadline = time.monotonic() + 60
    while _steps(live.path) < 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    app = build_app(runs_dir, start_sampler=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        await pilot.press("r")
        await _until(pilot, lambda: isinstance(app.screen, LiveRunsScreen), timeout=10, what="the list of runs")
        screen = app.screen
        assert [r.id for r in screen.runs] == [live.id]
        await pilot.press("enter")
        await _until(pilot, lambda: app.state.run_id == live.id and app.attached is not None, what="the attach")
        on_disk_then = len(app.history.runs[live.id].throughput.xs)
        assert on_disk_then >= 5 and app.state.status == "running" and app.selected_workload == "tick"
        # followed live: new steps reach the plots and the state
        await _until(pilot, lambda: app.history.runs[live.id].throughput.count >= on_disk_then + 5,
                     what="live steps")
        assert app.state.step >= on_disk_then + 5
        child = read_live(live.path).child_pid
        await pilot.press("s")
        assert "Stop tick" in app.screen.question and f"pid {live.pid}" in app.screen.question
        await pilot.press("y")
        await _until(pilot, lambda: app.state.status == "stopped", what="the stopped end")
        assert not app.attached.following
    record = load_run(live.path)
    assert record.status == "stopped" and len(record.steps) >= on_disk_then + 5
    assert live_runs(runs_dir) == []
    deadline = time.monotonic() + 30
    while not _gone(live.pid, child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(live.pid, child)


async def test_a_run_the_workbench_starts_detached_goes_on_after_it_quits(tick, runs_dir):
    app = build_app(runs_dir, start_sampler=False)
    async with app.run_test(size=(120, 36)) as pilot:
        live = await _start_tick_by(pilot, app, "D")
        assert live.detached and live.workload == "tick"
        await pilot.press("q")  # no question: nothing of this workbench's is running
    assert not app.is_running
    steps = _steps(live.path)
    deadline = time.monotonic() + 30
    while _steps(live.path) < steps + 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _steps(live.path) >= steps + 3 and [r.id for r in live_runs(runs_dir)] == [live.id]
    assert "stopped" in stop_live(live)
    assert load_run(live.path).status == "stopped"


async def test_s_starts_a_workload_whose_spec_says_detached_as_d_does(tick, runs_dir):
    import dataclasses

    with registry.registered(dataclasses.replace(tick, detached=True)):  # a soak's spec says so
        app = build_app(runs_dir, start_sampler=False)
        async with app.run_test(size=(120, 36)) as pilot:
            live = await _start_tick_by(pilot, app, "s")
            assert live.detached and not app.session.running  # not a run of this workbench: it outlives it
            await pilot.press("q")
        assert "stopped" in stop_live(live)
