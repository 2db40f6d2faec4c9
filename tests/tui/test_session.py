"""The run session: one route for telemetry into the open run, one stop policy, no child outliving its stream."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from contextlib import aclosing

import pytest

from app_fakes import child_factory, fake_sample
from tui.store import RunStore, load_run
from tui.session import RunSession


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


async def _until(condition, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


class _Sampler:
    def set_sink(self, sink):
        self.sink = sink


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


async def test_samples_reach_only_the_open_run(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "3", "0.01"))
    sampler = session.attach_sampler(_Sampler())
    sampler.sink(fake_sample(0).to_dict())  # no run open: dropped
    run = session.start("resnet50", [])
    assert (run.path / "telemetry.jsonl").read_text() == ""  # a sampled run has the file from its start
    sampler.sink(fake_sample(1).to_dict())
    events = [e async for e in session.events()]
    assert events[-1].kind == "end" and events[-1].status == "ok"
    assert not session.running and session.runs == [run.path]
    sampler.sink(fake_sample(2).to_dict())  # after the end: dropped, the file does not grow
    assert [s["t"] for s in load_run(run.path).telemetry] == [fake_sample(1).t]


async def test_the_run_is_written_off_the_event_loop_each_event_on_disk_before_it_is_yielded(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "5", "0.01"))
    run = session.start("resnet50", [])
    writers, append = set(), run.append

    def append_where(event):
        writers.add(threading.current_thread().name)
        append(event)

    run.append = append_where
    seen = 0
    async for event in session.events():
        seen += 1
        if event.kind != "end":   # the end is the stream's last: the run is closed after it
            on_disk = (run.path / "events.jsonl").read_text().count("\n")
            assert on_disk >= seen, (event.kind, on_disk, seen)
    assert writers and threading.current_thread().name not in writers   # never the loop's thread
    assert load_run(run.path).status == "ok"


async def test_stop_returns_once_the_run_is_on_disk_to_its_end(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "100000", "0.02"))
    run = session.start("resnet50", [])
    stepped = asyncio.Event()
    append = run.append

    def slow_append(event):   # a slow disk: each write takes a while on the writer's thread
        time.sleep(0.05)
        append(event)

    run.append = slow_append

    async def read() -> None:   # the workbench's worker: reads the stream to its end
        async for event in session.events():
            if event.kind == "step":
                stepped.set()

    reader = asyncio.create_task(read())
    await asyncio.wait_for(stepped.wait(), 30)
    await session.stop()
    assert load_run(run.path).status == "stopped"   # the end written, before the app would exit
    await reader


async def test_one_stop_policy_sigterm_then_sigkill_and_a_second_stop_joins_the_first(store, tmp_path):
    pids = tmp_path / "pids"
    session = RunSession(store, runner_factory=child_factory("hang.py", str(pids)), grace_s=0.5)
    run = session.start("resnet50", [])
    seen = []

    async def consume():
        async with aclosing(session.events()) as events:
            async for event in events:
                seen.append(event)

    task = asyncio.ensure_future(consume())
    await _until(lambda: any(e.kind == "step" for e in seen))
    child, grandchild = (int(p) for p in pids.read_text().split())
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.gather(session.stop(), session.stop())  # the child ignores SIGTERM: SIGKILL after the grace
    assert 0.4 < loop.time() - started < 5
    await asyncio.wait_for(task, 10)
    assert seen[-1].status == "stopped" and not _alive(child)
    # the group's SIGKILL is delivered, not awaited: the grandchild goes within moments, not at its leisure
    await _until(lambda: not _alive(grandchild), timeout=2.0)
    assert "ignored SIGTERM for 0.5 s" in load_run(run.path).log_text
    await session.stop()  # nothing open: nothing to do
    assert not session.running and not session.stopping


async def test_a_consumer_that_stops_listening_takes_the_child_with_it(store):
    factory = child_factory("steady.py", "100000", "0.02")
    session = RunSession(store, runner_factory=factory, grace_s=1.0)
    run = session.start("resnet50", [])
    with pytest.raises(RuntimeError, match="already open"):
        session.start("resnet50", [])
    async with aclosing(session.events()) as events:
        async for event in events:
            if event.kind == "step":
                break
    assert not session.running and not _alive(factory.made[0].pid)
    assert load_run(run.path).status == "incomplete"  # the stream was left before the child's end


async def test_a_signal_stops_the_run_then_tells_the_caller(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "100000", "0.02"))
    heard = []
    remove = session.stop_on_signals((signal.SIGUSR1,), then=heard.append)
    try:
        run = session.start("resnet50", [])
        kinds = []
        async for event in session.events():
            kinds.append(event.kind)
            if event.kind == "step" and kinds.count("step") == 2:   # once: the end comes after it
                os.kill(os.getpid(), signal.SIGUSR1)
    finally:
        remove()
    assert heard == [signal.SIGUSR1]
    assert load_run(run.path).status == "stopped"


# the CPU trap: work on the CPU while accelerators are listed ------------------------------------------

async def test_a_run_on_the_cpu_while_two_cards_are_listed_records_a_warning(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "3", "0.01"))  # starts on "cpu"
    sampler = session.attach_sampler(_Sampler())
    sampler.sink(fake_sample(0, devices=2).to_dict())  # nvidia-smi lists two cards; no run open yet
    run = session.start("resnet50", ["--batch-size", "64"])
    events = [e async for e in session.events()]
    kinds = [e.kind for e in events]
    assert kinds[:2] == ["start", "warning"] and kinds[-1] == "end" and kinds.count("warning") == 1
    warning = events[1]
    assert warning.code == "cpu_while_accelerators_listed" and warning.extra["accelerators"] == 2
    assert "resnet50 runs on the CPU" in warning.message and "2 accelerators" in warning.message
    assert "Hint: " in warning.message and "image's PyTorch" in warning.message
    record = load_run(run.path)  # on disk: events.jsonl and run.log
    (recorded,) = [e for e in record.events if e.kind == "warning"]
    assert recorded.code == "cpu_while_accelerators_listed" and recorded.message == warning.message
    assert "WARNING: resnet50 runs on the CPU" in record.log_text
    assert session.cpu_trap.verdict().startswith("WARNING: resnet50 ran on the CPU")


async def test_the_cpu_warning_waits_for_a_sample_that_lists_the_cards_and_comes_before_the_end(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "4", "0.05"))
    sampler = session.attach_sampler(_Sampler())
    session.start("resnet50", [])
    kinds = []
    async for event in session.events():
        kinds.append(event.kind)
        if event.kind == "step" and kinds.count("step") == 1:
            sampler.sink(fake_sample(1, devices=2).to_dict())
    assert kinds.count("warning") == 1 and kinds.index("warning") < kinds.index("end")
    assert kinds.index("warning") > kinds.index("step")


async def test_no_cpu_warning_when_the_cpu_was_asked_for_or_nothing_is_listed(store):
    session = RunSession(store, runner_factory=child_factory("steady.py", "2", "0.01"))
    sampler = session.attach_sampler(_Sampler())
    sampler.sink(fake_sample(0, devices=2).to_dict())
    session.start("resnet50", ["--device", "cpu"])  # the user means it
    assert "warning" not in [e.kind async for e in session.events()]
    assert session.cpu_trap.verdict() is None
    bare = RunSession(store, runner_factory=child_factory("steady.py", "2", "0.01"))
    bare.attach_sampler(_Sampler()).sink(fake_sample(0, devices=0).to_dict())  # a machine without accelerators
    bare.start("resnet50", [])
    assert "warning" not in [e.kind async for e in bare.events()]
    assert bare.cpu_trap.verdict() is None


async def test_the_sampler_is_told_the_open_runs_child_its_card_and_what_it_holds(store):
    from types import SimpleNamespace

    from tui.telemetry.processes import OwnWorkload
    from workloads import protocol

    session = RunSession(store)
    sampler = session.attach_sampler(_Sampler())
    assert sampler.own_workloads() == ()          # nothing runs
    session.runner = SimpleNamespace(pid=4242, env={"CUDA_VISIBLE_DEVICES": "2,3"})
    session._see_own(protocol.Start(workload="resnet50", device="cuda:1 (NVIDIA H100 80GB HBM3)"))
    assert sampler.own_workloads() == (OwnWorkload(4242, "resnet50", 3, None),)
    session._see_own(protocol.Step(step=1, memory_allocated_bytes=5 * 2 ** 30, memory_reserved_bytes=6 * 2 ** 30))
    session._see_own(protocol.Step(step=2))        # a step without figures keeps the last
    assert sampler.own_workloads() == (OwnWorkload(4242, "resnet50", 3, 6 * 2 ** 30),)
    session._see_own(protocol.Start(workload="generate", device="cpu (x86_64, 2 threads)"))   # on no card
    assert sampler.own_workloads() == (OwnWorkload(4242, "generate", None, None),)
