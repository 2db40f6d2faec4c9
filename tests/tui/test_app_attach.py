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
from tui.workbench.app import build_app
from tui.workbench.panes.live_runs import LiveRunsScreen
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


# --- issue 37 item 14: a live.json is a claim, not a proof --------------------------------------------------

async def test_a_hand_written_live_json_naming_an_unrelated_process_is_neither_listed_nor_stopped(runs_dir):
    from tui.workbench.panes.confirm import Confirm
    from tui.store.live import LiveRun

    # an unrelated process, leading a session and a group of its own (as a detached run does): its real pid and
    # start time in a live.json someone wrote by hand, beside an events.jsonl
    victim = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        proc = psutil.Process(victim.pid)
        fake = runs_dir / "20260101-000000-tick-fake"
        fake.mkdir(parents=True)
        (fake / "events.jsonl").write_text("")
        (fake / LIVE_FILE).write_text(json.dumps({"pid": victim.pid, "pgid": victim.pid,
                                                  "started": proc.create_time(), "host": os.uname().nodename,
                                                  "detached": True, "child_pid": None, "workload": "tick"}))
        assert read_live(fake) is None and live_runs(runs_dir) == []
        # even a LiveRun made from the file's word (an older listing, a caller that trusts it) is not signalled
        claimed = LiveRun(path=fake, pid=victim.pid, pgid=victim.pid, started=proc.create_time(), detached=True,
                          child_pid=None, workload="tick", beat=time.time())
        said = stop_live(claimed, grace_s=0.5)
        assert "not provably" in said and victim.poll() is None
        app = build_app(runs_dir, start_sampler=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await app.panes_built.wait()
            await pilot.press("r")
            await _until(pilot, lambda: isinstance(app.screen, LiveRunsScreen), timeout=10, what="the list of runs")
            assert app.screen.runs == []
            await pilot.press("escape")
            app.runs_in_progress.ask_stop(claimed)   # what s does for an attached run
            await pilot.pause(0.2)
            assert not isinstance(app.screen, Confirm)
            assert any("not provably" in line for line in app.log_pane.lines_text)
            await pilot.press("y")
            await pilot.pause(0.5)
        assert victim.poll() is None and proc.is_running()
    finally:
        victim.kill()
        victim.wait()


# --- issue 37 item 11: the attach reads a run's last events and says it has more ------------------------------

async def test_attaching_to_a_run_with_more_events_than_the_workbench_reads_shows_the_last_ones_and_says_so(
        runs_dir, monkeypatch):
    import tui.store.follow
    from tui.store.live import LiveRun

    monkeypatch.setattr(tui.store.follow, "ATTACH_EVENTS", 100)
    run = runs_dir / "20260101-000000-tick-long"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"workload": "tick", "args": [], "created": 1.0}))
    with open(run / "events.jsonl", "w") as handle:
        handle.write(json.dumps({"event": "start", "t": 1.0, "workload": "tick", "device": "cpu", "config": {},
                                 "versions": {}}) + "\n")
        for i in range(1, 301):
            handle.write(json.dumps({"event": "step", "t": 1.0 + i, "step": i, "throughput": 10.0,
                                     "unit": "items/s"}) + "\n")
            if i == 250:
                handle.write('{"event": "warning", "t": 2.0, "message": "' + "x" * (1 << 20) + '"}\n')
    me = psutil.Process()   # not stopped here: attaching only reads, and the process need only be alive
    live = LiveRun(path=run, pid=me.pid, pgid=os.getpgid(0), started=me.create_time(), detached=False,
                   child_pid=None, workload="tick", beat=time.time())
    app = build_app(runs_dir, start_sampler=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        assert app.runs_in_progress.attach(live)
        await _until(pilot, lambda: app.attached is not None, what="the attach")
        said = "\n".join(app.log_pane.lines_text)
        assert "a long run: only its last 100 events shown (and its start); older ones are left out" in said
        assert "1 event line(s) longer than 1 MiB (no run writes one) passed over" in said
        shown = app.history.runs[live.id]   # its first steps shown: the warm-up's line, then the median's
        assert shown.warmup.xs[0] == 201 and shown.throughput.xs[0] > 201 and app.state.step == 300
        app.runs_in_progress.unfollow()
