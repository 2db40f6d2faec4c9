"""tui.detach.start_detached: a command in a session of its own, away from the terminal."""
from __future__ import annotations

import json
import os
import signal
import time

import psutil

from paths import CHILDREN
from tui.detach import start_detached


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
