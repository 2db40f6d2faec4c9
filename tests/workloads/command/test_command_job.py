"""The job's whole process group ends with the run: stopped, killed with the child, or left behind.

Each test runs the real child (`python -m workloads.command`) on a job that starts a long, silent
`sleep` in the background and writes both pids to a file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SLEEPER = 'sleep 300 & echo $! > "{pids}"; echo $$ >> "{pids}"; '


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def start(tmp_path: Path, script: str, *options: str, before: str = "") -> tuple[subprocess.Popen, list[int]]:
    pids = tmp_path / "pids"
    child = subprocess.Popen([sys.executable, "-m", "workloads.command", *options, "--", "sh", "-c",
                              before + SLEEPER.format(pids=pids) + script],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, 30), "the job did not start"
    return child, [int(p) for p in pids.read_text().split()]


def events(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


@pytest.fixture
def reaped():
    """Every pid a test names is gone at its end, whatever the test asserted."""
    names: list[int] = []
    yield names
    for pid in names:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_sigterm_to_the_child_stops_the_jobs_whole_group(tmp_path, reaped):
    child, pids = start(tmp_path, "wait")
    reaped += pids
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=30)
    said = events(out)
    assert said[-1]["event"] == "end" and said[-1]["status"] == "stopped"
    assert any(e["event"] == "result" for e in said)  # what was gathered before the stop is kept
    assert wait_for(lambda: not any(alive(p) for p in pids), 5), "the job's processes outlived the stop"


def test_a_sigkilled_child_leaves_no_job_behind_even_a_silent_one(tmp_path, reaped):
    child, pids = start(tmp_path, "wait")
    reaped += pids
    child.kill()  # what PR_SET_PDEATHSIG does to the child when its runner is killed
    child.communicate(timeout=30)
    assert wait_for(lambda: not any(alive(p) for p in pids), 10), "the job outlived its SIGKILLed child"


def test_a_job_that_ignores_sigterm_is_killed_after_the_grace(tmp_path, reaped):
    # an ignored signal stays ignored across fork and exec: the shell and its sleep both ignore SIGTERM
    child, pids = start(tmp_path, "wait", "--grace", "0.5", before="trap '' TERM; ")
    reaped += pids
    began = time.monotonic()
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=30)
    assert events(out)[-1]["status"] == "stopped"
    assert "ignored SIGTERM for 0.5 s; sending SIGKILL" in err
    assert time.monotonic() - began < 10
    assert wait_for(lambda: not any(alive(p) for p in pids), 5)


def test_what_the_job_leaves_running_when_it_exits_is_taken_down(tmp_path, reaped):
    child, pids = start(tmp_path, "exit 0")  # the shell exits, its background sleep holds the pipe open
    reaped += pids
    out, err = child.communicate(timeout=30)
    assert events(out)[-1]["status"] == "ok"
    assert wait_for(lambda: not alive(pids[0]), 5), "a process the job left behind outlived the run"


CARDBENCH_RUN = """
import sys
from tui import cli
from workloads import registry
from workloads.command.spec import SPEC
with registry.registered(SPEC):
    sys.exit(cli.main(sys.argv[1:]))
"""


def test_kill_9_of_cardbench_run_takes_the_silent_job_with_it(tmp_path, reaped):
    pids = tmp_path / "pids"
    runner = subprocess.Popen([sys.executable, "-c", CARDBENCH_RUN, "run", "--runs-dir", str(tmp_path / "runs"),
                               "command", "--", "sh", "-c", SLEEPER.format(pids=pids) + "wait"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, 60), "the job did not start"
    job = [int(p) for p in pids.read_text().split()]
    reaped += job
    runner.kill()  # the workload child dies with it (PR_SET_PDEATHSIG), and the job's guard takes the group down
    runner.wait(timeout=30)
    assert wait_for(lambda: not any(alive(p) for p in job), 15), "the job outlived `cardbench run`"


@pytest.mark.parametrize("escape", [
    'setsid sleep 300 & echo $! > "{pids}"; echo $$ >> "{pids}"; ',                       # a new session
    '(setsid sh -c \'sleep 300 & echo $! > "{pids}"; echo $$ >> "{pids}"\' &); ',         # a daemon's double fork
])
@pytest.mark.parametrize("ending", ["exit 0", "stop"])
def test_a_daemon_that_left_the_job_s_session_is_stopped_too(tmp_path, reaped, escape, ending):
    """setsid takes a process out of the job's group, where the guard's kill cannot reach it: the child is a
    subreaper, so the escaped daemon comes back to it when orphaned and is stopped at the end, and said."""
    pids = tmp_path / "pids"
    script = escape.format(pids=pids) + ("exit 0" if ending == "exit 0" else "sleep 300")
    child = subprocess.Popen([sys.executable, "-m", "workloads.command", "--grace", "1", "--", "sh", "-c", script],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, 30), "the job did not start"
    daemon = int(pids.read_text().split()[0])
    reaped.append(daemon)
    # the pid is written before setsid has run in the background process: wait for it to leave the session
    assert wait_for(lambda: alive(daemon) and os.getsid(daemon) != os.getsid(child.pid), 10)
    if ending == "stop":
        time.sleep(0.3)
        child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert wait_for(lambda: not alive(daemon), 5), "the daemon outlived the run"
    assert f"stopped 1 process the command left running outside its process group (setsid or a daemon): " \
           f"pid {daemon}" in err
    result = next(e for e in events(out) if e["event"] == "result")
    assert result["metrics"]["leftover_processes_stopped"] == 1


def test_what_the_job_prints_reaches_no_terminal_as_escape_sequences(tmp_path):
    """OSC 0 retitles the window, OSC 52 writes the clipboard, ESC[2J clears: a job's lines are defused in the
    failure message, the log and the events."""
    hostile = r'printf "\033]0;pwned\007\033]52;c;ZWNobyBoaQ==\007\033[2Jboom\n"; exit 3'
    done = subprocess.run([sys.executable, "-m", "workloads.command", "--", "sh", "-c", hostile],
                          capture_output=True, text=True, timeout=60)
    error = next(e for e in events(done.stdout) if e["event"] == "error")
    assert "its last lines: boom" in error["message"]
    assert "boom" in done.stderr   # the log, which is the terminal when the workload runs on its own
    for text in (done.stdout, done.stderr, error["message"]):
        assert "\x1b" not in text and "\x07" not in text and "\\u001b" not in text


def _pids_in(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_daemon_that_respawns_its_worker_when_stopped_leaves_nothing_behind(tmp_path, reaped):
    """A supervisor that starts a new worker on SIGTERM, then exits: the new worker comes back to the subreaper
    after the first SIGTERM went out, and is stopped too. The job fails (exit 3): leftovers are stopped then too."""
    daemon, spawned = tmp_path / "daemon", tmp_path / "spawned"
    supervisor = (f'trap "sleep 301 & echo \\$! >> {spawned}; exit 0" TERM; echo $$ > {daemon}; '
                  'while :; do sleep 0.2; done')
    script = (f"setsid sh -c '{supervisor}' </dev/null >/dev/null 2>&1 & "
              f"while [ ! -s {daemon} ]; do sleep 0.05; done; exit 3")
    try:
        done = subprocess.run([sys.executable, "-m", "workloads.command", "--grace", "2", "--", "sh", "-c", script],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert wait_for(lambda: _pids_in(spawned), 5), "the supervisor was not asked to stop"
        pids = _pids_in(daemon) + _pids_in(spawned)
        assert events(done.stdout)[-1]["status"] == "failed"
        assert wait_for(lambda: not any(alive(p) for p in pids), 5), "the respawned worker outlived the run"
        stopped = next(line for line in done.stderr.splitlines() if "left running outside its process group" in line)
        assert all(str(p) in stopped for p in pids)
    finally:
        reaped += _pids_in(daemon) + _pids_in(spawned)


def test_ctrl_c_of_cardbench_run_stops_a_daemon_that_ignores_sigterm(tmp_path, reaped):
    """The real `cardbench run command`, interrupted as a user does it: the daemon outside the job's group ignores
    SIGTERM, so it is SIGKILLed after --grace; run.log says how many were stopped."""
    pids, runs = tmp_path / "pids", tmp_path / "runs"
    script = (f"setsid sh -c 'trap \"\" TERM; sleep 302 & echo $$ $! > {pids}; wait' </dev/null >/dev/null 2>&1 & "
              "sleep 300")
    runner = subprocess.Popen([sys.executable, "-c", CARDBENCH_RUN, "run", "--runs-dir", str(runs), "command",
                               "--grace", "0.5", "--", "sh", "-c", script],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: len(_pids_in(pids)) == 2, 60), "the job did not start"
        daemon = _pids_in(pids)
        time.sleep(0.3)
        runner.send_signal(signal.SIGINT)
        assert runner.wait(timeout=60) == 130
        assert wait_for(lambda: not any(alive(p) for p in daemon), 5), "the daemon outlived the run"
        log = next(runs.iterdir()).joinpath("run.log").read_text()
        assert "stopped 2 processes the command left running outside its process group" in log
    finally:
        reaped += _pids_in(pids)
        if runner.poll() is None:
            runner.kill()
            runner.wait(timeout=30)
