"""tui.detach.start_detached: a command in a session of its own, away from the terminal."""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time

import psutil
import pytest

from paths import CHILDREN
from tui.cli import _split_run_args
from tui import detach
from tui.detach import start_detached
from tui.store.live import LIVE_FILE, STALE_S, LiveMarker, live_runs, read_live, stop_live
from tui.store import load_run


def _first_line(path, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            return json.loads(path.read_text().splitlines()[0])
        time.sleep(0.05)
    raise AssertionError(f"nothing in {path}")


def test_the_command_runs_in_its_own_session_with_its_output_in_the_log(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{CHILDREN}{os.pathsep}{os.environ['PYTHONPATH']}")
    log = tmp_path / "detached.log"
    pid = start_detached(["soak", "--hours", "1"], runs_dir=tmp_path / "runs", log_path=log,
                         module="detached_probe")
    try:
        said = _first_line(log)
        assert said["pid"] == pid and said["sid"] == pid and said["pgid"] == pid  # setsid: its own session
        assert said["argv"] == ["--runs-dir", str(tmp_path / "runs"), "soak", "--hours", "1"]
        assert said["stdin_tty"] is False and said["detached"] == "1"
        assert said["runs_dir"] == str(tmp_path / "runs")
        # a hang-up to the starter's process group (a closed SSH session) does not reach it
        assert os.getpgid(pid) != os.getpgid(0)
    finally:
        os.killpg(pid, signal.SIGKILL)
    # the starter reaps it (a zombie would still answer kill(pid, 0) and read as a live run)
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not psutil.pid_exists(pid)


# --- `cardbench run --detach`, through a stand-in `cardbench` that knows the workload `tick` ---

def _tick_env(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{CHILDREN}{os.pathsep}{os.environ['PYTHONPATH']}")
    return dict(os.environ)


def _steps_on_disk(run_dir) -> int:
    return sum('"event": "step"' in line or '"event":"step"' in line
               for line in (run_dir / "events.jsonl").read_text().splitlines())


def _wait_for(predicate, timeout=30.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_detached_run_survives_the_hang_up_of_its_session_and_the_death_of_its_starter(tmp_path, monkeypatch):
    env = _tick_env(monkeypatch)
    runs = tmp_path / "runs"
    # the terminal's session: a shell that starts the run and stays, as an SSH or tmux session does
    shell = subprocess.Popen(["sh", "-c", f"{sys.executable} -m tick_cli run tick --delay 0.1 --runs-dir {runs} "
                                          f"--detach; echo rc=$?; sleep 60"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                             start_new_session=True)
    said = []
    for line in shell.stdout:
        said.append(line)
        if line.startswith("rc="):
            break
    assert said[-1].strip() == "rc=0", said
    assert said[0].startswith("cardbench: run ") and "detached (pid " in said[0], said
    assert any("kill -TERM -- -" in line for line in said) and any("tail -f" in line for line in said)
    [live] = live_runs(runs)
    assert live.detached and live.workload == "tick" and live.pid == live.pgid
    # the session closes: SIGHUP to its whole process group, then the shell is killed outright
    os.killpg(shell.pid, signal.SIGHUP)
    os.killpg(shell.pid, signal.SIGKILL)
    shell.wait(timeout=10)
    before = _steps_on_disk(live.path)
    _wait_for(lambda: _steps_on_disk(live.path) >= before + 5, what="steps after the hang-up")
    _wait_for(lambda: read_live(live.path) is not None and read_live(live.path).child_pid is not None,
              what="the child's pid in live.json")
    child = read_live(live.path).child_pid
    # a hang-up sent to it by name is not its to obey either
    os.kill(live.pid, signal.SIGHUP)
    _wait_for(lambda: "hang-up ignored: detached" in (live.path / "run.log").read_text(), what="the hang-up noted")
    assert [run.id for run in live_runs(runs)] == [live.id]
    assert "stopped (SIGTERM" in stop_live(live)
    record = load_run(live.path)
    assert record.status == "stopped" and len(record.steps) >= before + 5
    assert not (live.path / LIVE_FILE).exists() and live_runs(runs) == []
    _wait_for(lambda: not psutil.pid_exists(live.pid) and not psutil.pid_exists(child), what="no process left")


def test_detach_with_json_or_a_bad_argument_is_one_line_and_no_run(tmp_path, monkeypatch):
    env = _tick_env(monkeypatch)
    runs = tmp_path / "runs"
    for extra, said in ((["--json"], "--detach returns before the result exists"),
                        (["--delay", "x"], "invalid float value")):
        done = subprocess.run([sys.executable, "-m", "tick_cli", "run", "tick", "--runs-dir", str(runs), "--detach",
                               *extra], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 2, done
        assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not runs.exists() or not [p for p in runs.iterdir() if p.is_dir()]


def test_a_commands_own_double_dash_and_what_follows_belong_to_the_workload():
    own, forwarded = _split_run_args(["--detach", "command", "--", "python", "train.py", "--json", "--detach"])
    assert own == ["--detach"]
    assert forwarded == ["command", "--", "python", "train.py", "--json", "--detach"]


# --- what is listed as in progress ---

def _marker(run_dir, **fields):
    """A live.json naming this process, which also holds the run's events.jsonl open for appending, as the run's
    recorder does (tui.store.live.records): the handle stays open for the rest of the test."""
    run_dir.mkdir(parents=True, exist_ok=True)
    _HELD.append(open(run_dir / "events.jsonl", "a"))
    me = psutil.Process()
    data = {"pid": me.pid, "pgid": os.getpgid(0), "started": me.create_time(), "host": socket.gethostname(),
            "detached": True, "child_pid": None, "workload": "tick", **fields}
    (run_dir / LIVE_FILE).write_text(json.dumps(data))
    return run_dir


_HELD: list = []


@pytest.fixture(autouse=True)
def _close_held():
    yield
    while _HELD:
        _HELD.pop().close()


def test_a_live_pid_with_a_fresh_heartbeat_is_in_progress(tmp_path):
    run = _marker(tmp_path / "runs" / "20261203-000000-tick-aaaa")
    [live] = live_runs(tmp_path / "runs")
    assert live.path == run and live.pid == os.getpid()


def test_a_stale_pid_file_is_not_in_progress(tmp_path):
    runs = tmp_path / "runs"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _marker(runs / "a-crashed-run", pid=dead.pid)                          # the process is gone
    _marker(runs / "b-reused-pid", started=psutil.Process().create_time() - 3600)  # the pid is another process now
    _marker(runs / "c-other-host", host="another-machine")                 # a runs dir shared over NFS
    old = _marker(runs / "d-no-heartbeat") / LIVE_FILE                     # alive, but no longer recording
    os.utime(old, (time.time() - STALE_S - 5, time.time() - STALE_S - 5))
    (runs / "e-torn").mkdir()
    (runs / "e-torn" / LIVE_FILE).write_text('{"pid": 12')
    assert live_runs(runs) == []


def test_the_marker_beats_while_the_run_goes_and_is_gone_when_it_ends(tmp_path):
    _HELD.append(open(tmp_path / "events.jsonl", "a"))   # this process records the run, as `cardbench run` does
    marker = LiveMarker(tmp_path, detached=False, workload="tick", interval=0.05).start()
    path = tmp_path / LIVE_FILE
    os.utime(path, (time.time() - 100, time.time() - 100))
    _wait_for(lambda: time.time() - path.stat().st_mtime < 5, timeout=5, what="a heartbeat")
    marker.set_child(4242)
    assert json.loads(path.read_text())["child_pid"] == 4242 and read_live(tmp_path) is not None
    marker.remove()
    assert not path.exists() and read_live(tmp_path) is None


def test_a_run_in_another_terminal_is_listed_and_stopped_alone_not_its_shells_group(tmp_path, monkeypatch):
    env = _tick_env(monkeypatch)
    runs = tmp_path / "runs"
    # in this process group, as a run started in a terminal is in its shell's job: signalling the group would
    # take the test runner down with it
    run = subprocess.Popen([sys.executable, "-m", "tick_cli", "run", "tick", "--delay", "0.1", "--runs-dir", str(runs)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        _wait_for(lambda: len(live_runs(runs)) == 1, what="the run listed")
        [live] = live_runs(runs)
        assert not live.detached and live.pid == run.pid and live.pgid == os.getpgid(0)
        assert "stopped (SIGTERM" in stop_live(live)
        assert run.wait(timeout=30) == 143  # its own exit status for a SIGTERM
        assert load_run(live.path).status == "stopped" and live_runs(runs) == []
    finally:
        if run.poll() is None:
            run.kill()


def test_being_detached_is_read_once_and_not_passed_on_to_children(monkeypatch):
    monkeypatch.setattr(detach, "_detached", None)
    monkeypatch.setenv(detach.DETACHED_ENV, "1")
    assert detach.is_detached()
    assert detach.DETACHED_ENV not in os.environ  # a workload child, and a `cardbench run` in a user's job, are not
    assert detach.is_detached()


# --- issue 37 item 14: live.json's word is checked against the kernel's -----------------------------------

def _claim(run_dir, pid, **fields):
    """A hand-written live.json naming ``pid`` with its real start time, beside an events.jsonl."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "events.jsonl").touch()
    data = {"pid": pid, "pgid": pid, "started": psutil.Process(pid).create_time(), "host": socket.gethostname(),
            "detached": True, "child_pid": None, "workload": "tick", **fields}
    (run_dir / LIVE_FILE).write_text(json.dumps(data))
    return run_dir


def _holding(path, mode):
    """A child that opens ``path`` in ``mode`` and sleeps, in a session of its own (as a detached run is)."""
    child = subprocess.Popen([sys.executable, "-c", f"import time; f = open({str(path)!r}, {mode!r}); "
                              "print('open', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    assert child.stdout.readline().strip() == "open"
    return child


def test_only_a_process_writing_the_runs_files_in_that_directory_is_its_recorder(tmp_path):
    from tui.store.live import records

    run = tmp_path / "runs" / "20261203-000000-tick-aaaa"
    run.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    children = []
    try:
        # a reader of the run (the workbench following it, tail -f) is not its recorder
        (run / "events.jsonl").touch()
        children.append(_holding(run / "events.jsonl", "rb"))
        _claim(run, children[-1].pid)
        assert not records(children[-1].pid, run) and read_live(run) is None
        # a writer of another folder's events.jsonl, reached through a link in the run directory, is not either
        children.append(_holding(elsewhere / "events.jsonl", "a"))
        linked = tmp_path / "runs" / "20261203-000000-tick-link"
        linked.mkdir()
        (linked / "events.jsonl").symlink_to(elsewhere / "events.jsonl")
        (linked / LIVE_FILE).write_text((run / LIVE_FILE).read_text().replace(str(children[0].pid),
                                                                                str(children[-1].pid)))
        assert not records(children[-1].pid, linked)
        # nor through a run directory that is itself a link to that folder
        (tmp_path / "runs" / "20261203-000000-tick-dirlink").symlink_to(elsewhere, target_is_directory=True)
        assert not records(children[-1].pid, tmp_path / "runs" / "20261203-000000-tick-dirlink")
        assert live_runs(tmp_path / "runs") == []
        # the writer of the run's own events.jsonl is, and is listed; "detached" holds as it leads its session
        children.append(_holding(run / "events.jsonl", "a"))
        _claim(run, children[-1].pid)
        [live] = live_runs(tmp_path / "runs")
        assert live.pid == children[-1].pid and live.detached
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_detached_in_the_file_is_not_a_licence_to_signal_a_group_the_process_does_not_lead(tmp_path):
    # a recorder in this process group (a run in a terminal) whose live.json says "detached": signalling its
    # "group" would be the test runner's; only the process itself is stopped
    run = tmp_path / "runs" / "20261203-000000-tick-aaaa"
    run.mkdir(parents=True)
    child = subprocess.Popen([sys.executable, "-c", f"import time; f = open({str(run / 'events.jsonl')!r}, 'a'); "
                              "print('open', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "open"
        _claim(run, child.pid, pgid=os.getpgid(0))
        live = read_live(run)
        assert live is not None and not live.detached
        assert "stopped (SIGTERM" in stop_live(dataclasses.replace(live, detached=True))
        assert child.wait(timeout=10) == -signal.SIGTERM
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
