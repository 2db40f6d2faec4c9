"""The runner against small child programs that crash, get killed, hang or print garbage."""
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from tui.store import RunStore, load_run
from workloads.runner import Runner
from paths import CHILDREN



def _argv(name, *args):
    return [sys.executable, str(CHILDREN / f"{name}.py"), *args]


async def _collect(runner):
    return [event async for event in runner.events()]


def _alive(pid):
    """True while pid is a live (non-zombie) process."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            state = next(line for line in handle if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return False
    return " Z " not in state and "zombie" not in state


@pytest.fixture
def run(tmp_path):
    record = RunStore(tmp_path / "runs").create("test", [])
    yield record
    record.close()


async def test_crash_yields_prior_events_then_error_and_failed_end(run):
    events = await _collect(Runner(_argv("crash"), run=run))
    kinds = [e.kind for e in events]
    assert kinds == ["start", "step", "step", "error", "end"]
    error, end = events[-2], events[-1]
    assert "exited with code 3" in error.message and "kernel image is invalid" in error.message
    assert error.hint and "--amp off" in error.hint
    assert end.status == "failed" and end.exit_code == 3
    record = load_run(run.path)
    assert [e.kind for e in record.events] == kinds
    assert "kernel image is invalid" in record.log_text  # stderr reached run.log


async def test_death_by_sigkill_is_a_failed_end_not_an_exception(run):
    events = await _collect(Runner(_argv("sigkill"), run=run))
    assert [e.kind for e in events] == ["start", "step", "error", "end"]
    assert "SIGKILL" in events[-2].message
    assert events[-1].status == "failed"
    assert load_run(run.path).status == "failed"


async def test_hanging_child_is_stopped_within_the_grace_period_with_its_group(run, tmp_path):
    pids_file = tmp_path / "pids"
    runner = Runner(_argv("hang", str(pids_file)), run=run, grace_s=0.5)
    seen = []

    async def consume():
        async for event in runner.events():
            seen.append(event)

    task = asyncio.create_task(consume())
    for _ in range(200):  # the child writes its pids, then its first events
        if len(seen) >= 2:
            break
        await asyncio.sleep(0.05)
    assert [e.kind for e in seen] == ["start", "step"]
    started = time.monotonic()
    await runner.stop()
    await asyncio.wait_for(task, 10)
    assert time.monotonic() - started < 3.0
    assert seen[-1].kind == "end" and seen[-1].status == "stopped"
    child, grandchild = map(int, pids_file.read_text().split())
    for _ in range(50):
        if not _alive(child) and not _alive(grandchild):
            break
        await asyncio.sleep(0.05)
    assert not _alive(child) and not _alive(grandchild)
    assert "SIGKILL" in load_run(run.path).log_text


async def test_malformed_lines_are_logged_and_skipped(run):
    events = await _collect(Runner(_argv("malformed"), run=run))
    assert [e.kind for e in events] == ["start", "step", "step", "result", "end"]
    assert events[0].extra == {"future_field": "kept"}
    assert events[-1].status == "ok"
    record = load_run(run.path)
    assert [e.kind for e in record.events] == ["start", "step", "step", "result", "end"]
    assert record.result.metrics == {"images_per_s": 10.0}
    assert record.log_text.count("skipped malformed event line") == 5
    # every line the child flushed as a valid event is on disk, in order
    lines = (run.path / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["start", "step", "step", "result", "end"]


async def test_a_program_that_cannot_start_is_a_failed_end(run):
    events = await _collect(Runner(["/nonexistent/python"], run=run))
    assert [e.kind for e in events] == ["error", "end"]
    assert events[-1].status == "failed"


async def test_workload_module_bad_argument_reports_one_line_and_exit_2(run):
    # a real workload module through the harness: argparse errors become an error event
    code = "from workloads.child.harness import ArgumentParser, run_main, positive_int\n" \
           "import sys\n" \
           "def main(em, argv):\n" \
           "    p = ArgumentParser(prog='w'); p.add_argument('--steps', type=positive_int); p.parse_args(argv)\n" \
           "sys.exit(run_main(main))\n"
    events = await _collect(Runner([sys.executable, "-c", code, "--steps", "-1"], run=run))
    assert [e.kind for e in events] == ["error", "end"]
    assert "must be a positive integer" in events[0].message
    assert events[-1].exit_code == 2 and events[-1].status == "failed"
    assert "Traceback" not in load_run(run.path).log_text


async def test_sigterm_reaches_the_harness_as_a_stopped_end(run):
    code = "import sys, time\nfrom workloads.child.harness import run_main\n" \
           "def main(em, argv):\n" \
           "    em.start('sleepy', {}, 'cpu', {})\n" \
           "    while True: time.sleep(0.05)\n" \
           "sys.exit(run_main(main))\n"
    runner = Runner([sys.executable, "-c", code], run=run, grace_s=5)
    seen = []

    async def consume():
        async for event in runner.events():
            seen.append(event)

    task = asyncio.create_task(consume())
    for _ in range(200):
        if seen:
            break
        await asyncio.sleep(0.05)
    await runner.stop()
    await asyncio.wait_for(task, 10)
    assert [e.kind for e in seen] == ["start", "end"]
    assert seen[-1].status == "stopped"
    # the harness's own end(stopped) line was written before it exited: it is on disk once
    assert [e.kind for e in load_run(run.path).events] == ["start", "end"]


async def test_stop_during_spawn_still_stops_the_child(run, tmp_path):
    pids_file = tmp_path / "pids"
    runner = Runner(_argv("hang", str(pids_file)), run=run, grace_s=0.5)
    events = runner.events()
    first = asyncio.ensure_future(events.__anext__())  # starts spawning
    await asyncio.sleep(0)
    await runner.stop()  # nothing to signal yet: the runner must remember the request
    rest = [await asyncio.wait_for(first, 20)]

    async def drain():
        return [event async for event in events]

    rest += await asyncio.wait_for(drain(), 20)  # without the fix the child hangs for ever
    assert rest[-1].kind == "end" and rest[-1].status == "stopped"
    # the child may be stopped before it wrote its pids: its process group (its own session) says what is left
    assert runner.pid is not None and not _alive(runner.pid)
    for _ in range(50):
        if not _group_members(runner.pid):
            break
        await asyncio.sleep(0.05)
    assert _group_members(runner.pid) == []
    if pids_file.exists():
        assert not any(_alive(int(p)) for p in pids_file.read_text().split())


def _group_members(pgid):
    """Live processes in process group ``pgid`` (a stopped child's group must be empty)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def test_a_workload_dies_with_its_sigkilled_parent_even_in_a_silent_phase(tmp_path):
    """`kill -9` of `cardbench run` or of the workbench: the child goes too, not at its next event."""
    import signal
    import subprocess

    pid_file = tmp_path / "child.pid"
    parent = ("import asyncio, sys\n"
              "from workloads.runner import Runner\n"
              "async def main():\n"
              f"    runner = Runner([sys.executable, {str(CHILDREN / 'silent.py')!r}, {str(pid_file)!r}])\n"
              "    async for event in runner.events():\n"
              "        pass\n"
              "asyncio.run(main())\n")
    proc = subprocess.Popen([sys.executable, "-c", parent])
    child = None
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)  # the file exists a moment before the pid is in it
        child = int(pid_file.read_text())
        assert _alive(child)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 3
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the workload outlived its SIGKILLed parent"
    finally:
        if proc.poll() is None:
            proc.kill()
        if child and _alive(child):
            os.kill(child, signal.SIGKILL)
