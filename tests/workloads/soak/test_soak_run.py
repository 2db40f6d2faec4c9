"""The soak end to end: a real session samples fake NVML devices into telemetry.jsonl while the soak runs a
torch-free stand-in workload again and again; faults injected at known times are found in their intervals."""

from __future__ import annotations

import asyncio
import csv
import os
import sys
import textwrap
import threading
import time
import types
from datetime import datetime, timezone

import pytest

from fake_nvml import FakeNvml, h100
from tui.store import RunStore
from tui.session import RunSession
from tui.telemetry.collect import Collector
from tui.telemetry.nvml import NvmlSource
from tui.telemetry.sampler import Sampler
from workloads import protocol, registry
from workloads.spec import Text, WorkloadSpec

TICK = textwrap.dedent('''
    """A stand-in workload: --steps steps at 100 items/s, one every 20 ms."""
    import sys, time
    from workloads.child.harness import ArgumentParser, positive_int, run_main
    from tick_record import TickResult

    def main(em, argv):
        p = ArgumentParser(prog="tick")
        p.add_argument("--steps", type=positive_int, default=20)
        p.add_argument("--fail", action="store_true")
        args = p.parse_args(argv)
        em.start("tick", {"steps": args.steps}, "cuda:0", {"python": sys.version.split()[0]})
        for step in range(1, args.steps + 1):
            time.sleep(0.02)
            em.step(step, throughput=100.0, unit="items/s", loss=1.0 / step)
        if args.fail:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        em.result(TickResult(items_per_s=100.0))
        return 0

    sys.exit(run_main(main))
''')
# its typed result, a module the child, the soak's registry and this test all read
TICK_RECORD = textwrap.dedent('''
    from dataclasses import dataclass
    from typing import ClassVar
    from workloads.result_record import Record, figure
    from workloads.spec import Text

    @dataclass
    class TickResult(Record):
        HEADLINE: ClassVar[str] = "items_per_s"
        items_per_s: float | None = figure(Text("items/s"), "items/s")
''')
_record = sys.modules.setdefault("tick_record", types.ModuleType("tick_record"))   # a dataclass reads its module
exec(TICK_RECORD, _record.__dict__)
TICK_SPEC = WorkloadSpec(name="tick", title=Text("tick"), result=_record.TickResult, module="tick")


# the soak (a child) checks --workload against its own registry: every child of these tests registers tick too
REGISTER = textwrap.dedent('''
    from workloads import registry
    from workloads.spec import Text, WorkloadSpec
    from tick_record import TickResult
    registry._specs["tick"] = WorkloadSpec(name="tick", title=Text("tick"), result=TickResult, module="tick")
''')


@pytest.fixture
def tick(tmp_path, monkeypatch):
    package = tmp_path / "plugins" / "tick"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(TICK)
    (package.parent / "sitecustomize.py").write_text(REGISTER)
    (package.parent / "tick_record.py").write_text(TICK_RECORD)
    monkeypatch.setenv("PYTHONPATH", f"{package.parent}{os.pathsep}{os.environ['PYTHONPATH']}")
    with registry.registered(TICK_SPEC):
        yield


@pytest.fixture
def kernel_log(tmp_path, monkeypatch):
    """A dmesg on PATH that prints a file the test appends to (ISO stamps, as util-linux gives them)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "kern.log"
    log.write_text("2026-01-01T00:00:00,000000+00:00 NVRM: Xid (PCI:0000:18:00): 13, before the soak\n")
    (bin_dir / "dmesg").write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write(open({str(log)!r}).read())\n")
    (bin_dir / "dmesg").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


async def soak(runs_dir, nvml, args, inject=()):
    """Run the soak in a session that samples ``nvml`` every 0.2 s; each ``(after_s, action)`` of ``inject`` runs
    that long after the soak's start (its own clock, from its start event), on a thread of its own."""
    session = RunSession(RunStore(runs_dir))
    collector = Collector(sources=[NvmlSource(nvml, slow_ttl=0)], torch_probe=False)
    sampler = session.attach_sampler(Sampler(interval=0.2, collector=collector))
    run = session.start("soak", args)
    sampler.start()
    events, started, done = [], threading.Event(), threading.Event()
    t0: list[float] = []

    def injector():
        started.wait()
        for after_s, action in inject:
            if done.wait(max(0.0, t0[0] + after_s - time.time())):
                return
            action()

    thread = threading.Thread(target=injector, daemon=True)
    thread.start()
    try:
        async for event in session.events():
            events.append(event)
            if isinstance(event, protocol.Start):
                t0.append(event.config["started"])
                started.set()
    finally:
        done.set()
        started.set()
        thread.join(5)
        sampler.stop()
    return run, events


def test_injected_xid_ecc_and_throttling_fail_the_soak_in_the_intervals_they_happened(tick, kernel_log, runs_dir):
    nvml = FakeNvml([h100(0), h100(1)])
    done: list[str] = []

    def ecc_and_heat():
        nvml.devices[1]["ecc"] = (3, 1)
        nvml.devices[1]["reasons"] = 0x4 | 0x40          # power cap + hw thermal
        done.append("ecc")

    def xid():
        stamp = datetime.now(timezone.utc).isoformat(timespec="microseconds").replace(".", ",")
        with open(kernel_log, "a") as f:
            f.write(f"{stamp} NVRM: Xid (PCI:0000:19:00): 79, pid=1, GPU has fallen off the bus.\n")
        done.append("xid")

    # intervals of 3 s: [0, 3) [3, 6) [6, 9) [9, 10); each fault mid-interval
    run, events = asyncio.run(soak(runs_dir, nvml, ["--hours", str(10 / 3600), "--interval", "3",
                                                    "--workload", "tick", "--args", "--steps 40"],
                                   [(4.5, ecc_and_heat), (7.5, xid)]))
    assert done == ["ecc", "xid"]
    result = next(e for e in events if isinstance(e, protocol.Result)).metrics
    assert events[-1].status == "ok"
    assert result["verdict"] == "FAIL"
    found: dict[tuple[str, str], str] = {}
    for f in result["findings"]:
        found.setdefault((f["level"], f["rule"]), f["text"])   # the first of each: when it began
    assert found[("FAIL", "xid")].startswith("Xid 79 (PCI:0000:19:00) at ") and ", interval 3:" in found[("FAIL", "xid")]
    assert found[("FAIL", "ecc")].startswith("GPU1: 1 uncorrectable ECC error(s) in interval 2,")
    assert found[("WARN", "thermal")].startswith("GPU1: thermal throttling ") and "of interval 2," in found[("WARN", "thermal")]
    assert "Xid 13" not in str(result["findings"])      # logged before the soak
    # said live, as each interval closed, not only at the end
    live = [e.message for e in events if isinstance(e, protocol.WorkloadWarning) and e.code == "soak_finding"]
    assert any("uncorrectable ECC" in m for m in live) and any("Xid 79" in m for m in live)
    # the steps came through as the soak's own, across the restarts of the inner workload, one a second at most
    steps = [e for e in events if isinstance(e, protocol.Step)]
    assert result["runs"] >= 2 and len(steps) >= 5
    assert all(b.step > a.step and b.t - a.t >= 1.0 for a, b in zip(steps, steps[1:]))
    assert steps[-1].step == sum(s.extra["inner_steps"] for s in steps)   # each says how many it stands for
    with open(run.path / "intervals.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["interval"] for r in rows] == ["1", "2", "3", "4"] and rows[-1]["minutes"] == "0.0"  # 1 s
    assert rows[1]["ecc_uncorrected"] == "1 (GPU1 +1)" and rows[2]["xid"].startswith("79 at ")
    text = (run.path / "verdict.txt").read_text()
    assert text.startswith("soak verdict: FAIL\n") and "rules:\n  FAIL: any Xid line" in text
    assert "soak: per interval" in (run.path / "run.log").read_text()


# a failing workload restarted, counted and failing the soak: tests/workloads/soak/test_soak_clock.py, on a fake
# clock (it was a 6 s soak of a real failing child here)


def test_arguments_the_inner_workload_refuses_end_the_soak_at_once(tick, kernel_log, runs_dir):
    start = time.monotonic()
    run, events = asyncio.run(soak(runs_dir, FakeNvml([h100(0)]), ["--hours", "1", "--workload", "tick",
                                                                    "--args", "--steps -3"]))
    assert time.monotonic() - start < 30
    error = next(e for e in events if isinstance(e, protocol.Error))
    assert error.message.startswith("tick refused its arguments '--steps -3' (exit 2)")
    assert events[-1].status == "failed" and events[-1].exit_code == 2


def test_a_stopped_soak_still_closes_its_interval_and_writes_its_verdict(tick, kernel_log, runs_dir):
    async def stop_soon():
        session = RunSession(RunStore(runs_dir))
        run = session.start("soak", ["--hours", "1", "--interval", "60", "--workload", "tick", "--args", "--steps 500"])
        events = []
        async for event in session.events():
            events.append(event)
            if isinstance(event, protocol.Step) and event.step >= 20:
                session.request_stop()
        return run, events

    run, events = asyncio.run(stop_soon())
    assert events[-1].status == "stopped"
    result = next(e for e in events if isinstance(e, protocol.Result)).metrics
    assert result["stopped_early"] is True and len(result["intervals"]) == 1
    assert "(stopped early)" in (run.path / "verdict.txt").read_text()
    assert (run.path / "intervals.csv").read_text().count("\n") == 2
    assert result["rule_1"] == "FAIL: any Xid line in the kernel log during the soak"   # the report lists them


def test_a_soak_of_one_interval_is_not_judged_and_says_so(tick, kernel_log, runs_dir):
    """Drift is an interval against the first: one interval cannot PASS (issue 22.5), and its report headline is
    no drift at all, never the steps' images/s shown as '% drift'."""
    from tui.report.summary import summarize
    from tui.store import load_run

    async def stop_soon():
        session = RunSession(RunStore(runs_dir))
        run = session.start("soak", ["--hours", "1", "--interval", "60", "--workload", "tick", "--args", "--steps 500"])
        async for event in session.events():
            if isinstance(event, protocol.Step) and event.step >= 20:
                session.request_stop()
        return run

    run = asyncio.run(stop_soon())
    text = (run.path / "verdict.txt").read_text()
    assert "stopped after 1 interval(s) with throughput: drift was not judged (it needs two" in text
    assert not text.lstrip().startswith("PASS")
    record = load_run(run.path)
    assert record.result.metrics["verdict"] == "WARN"
    assert summarize(record).headline is None   # no drift was measured: N/A, not 12.3 images/s under '% drift'
