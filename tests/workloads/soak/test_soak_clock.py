"""The soak's loop on a fake clock: restarts, counts and the verdict without waiting for real seconds.

The inner runs are fakes that end at once (as a CUDA error ends one); the soak's deadline, restart delay and
interval closes read the fake clock, which moves a second each time it is read. The real soak in a session,
with real children and telemetry, is tests/workloads/soak/test_soak_run.py.
"""

from __future__ import annotations

import asyncio
import io

from workloads import protocol
from workloads.child.harness import Emitter
from workloads.soak import cli as soak_cli


class FakeClock:
    """Wall-clock seconds that move on by ``step`` each time they are read."""

    def __init__(self, t0: float = 1_790_000_000.0, step: float = 1.0):
        self.t, self.step = t0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def _failing_runner(clock: FakeClock, started: list[str]):
    class FailingRun:
        """An inner run that starts, steps once and fails with a CUDA error, its events stamped on the fake clock."""

        async def events(self):
            yield protocol.Start(t=clock.t, workload="tick", device="cpu")
            yield protocol.Step(t=clock.t, step=1, throughput=100.0, unit="items/s")
            yield protocol.Error(t=clock.t, message="CUDA error: an illegal memory access was encountered")
            yield protocol.End(t=clock.t, status="failed", exit_code=1)

        async def stop(self, grace_s=None):
            pass

    return _runner_of(FailingRun, started)


def _runner_of(run, started: list[str]):
    """A stand-in for the soak's Runner that starts ``run()`` for each inner run, and notes its workload."""
    class Runner:
        @classmethod
        def for_workload(cls, name, args=(), **kw):
            started.append(name)
            return run()

    return Runner


class QuietKernelLog:
    problem = None

    def start(self):
        pass

    def new(self, now=None):
        return []


def test_a_failing_workload_is_restarted_counted_and_fails_the_soak(tmp_path, monkeypatch):
    """Was a 6 s soak of a real failing child (and seconds of start-up each run): the same counts and verdict on
    a fake clock, in well under a second."""
    clock, started = FakeClock(), []
    monkeypatch.setattr(soak_cli, "Runner", _failing_runner(clock, started))
    monkeypatch.setattr(soak_cli, "KernelLog", QuietKernelLog)
    monkeypatch.delenv(protocol.RUN_DIR_ENV, raising=False)
    args = soak_cli.build_parser().parse_args(["--hours", str(60 / 3600), "--interval", "20", "--workload", "tick",
                                               "--out", str(tmp_path)])
    soak = soak_cli.Soak(Emitter(stream=io.StringIO()), [("tick", ["--steps", "5", "--fail"])], args, clock=clock)
    asyncio.run(soak.run())
    result = soak.finish(stopped=False)
    assert clock.t - soak.t0 >= 60    # the loop ended at the deadline of its fake clock, not before
    assert result["verdict"] == "FAIL" and result["restarts"] >= 1 and len(started) == result["runs"] >= 2
    assert result["errors"] == result["failed_runs"] == result["runs"]   # each run failed once, with one error
    rules = {f["rule"] for f in result["findings"]}
    assert {"error", "restart"} <= rules
    assert (tmp_path / "verdict.txt").read_text().startswith("soak verdict: FAIL\n")
    assert [r["interval"] for r in result["intervals"]][:3] == ["1", "2", "3"]   # 60 s in intervals of 20 s


def test_the_start_is_dated_when_the_soak_began_and_no_throughput_is_said_once(tmp_path, monkeypatch):
    """The start event waits for the first inner run's device, but its time is the soak's start: a report's run
    length is the soak's (it read 24.6 s of a 39 s soak). A soak whose runs report no throughput says so once."""
    clock = FakeClock()

    class Silent:
        async def events(self):
            for _ in range(5):   # the inner run's start-up moves the clock on before it says which device
                clock()
            yield protocol.Start(t=clock.t, workload="tick", device="cpu")
            yield protocol.End(t=clock.t, status="ok", exit_code=0)

        async def stop(self, grace_s=None):
            pass

    monkeypatch.setattr(soak_cli, "Runner", _runner_of(Silent, []))
    monkeypatch.setattr(soak_cli, "KernelLog", QuietKernelLog)
    monkeypatch.delenv(protocol.RUN_DIR_ENV, raising=False)
    args = soak_cli.build_parser().parse_args(["--hours", str(40 / 3600), "--interval", "20", "--workload", "tick",
                                               "--out", str(tmp_path)])
    events = io.StringIO()
    soak = soak_cli.Soak(Emitter(stream=events), [("tick", [])], args, clock=clock)
    asyncio.run(soak.run())
    result = soak.finish(stopped=False)
    start = protocol.parse_line(events.getvalue().splitlines()[0])
    assert isinstance(start, protocol.Start) and start.t == soak.t0 and start.device == "cpu"
    said = [f["text"] for f in result["findings"]]
    assert "no throughput reported: drift was not measured" in said
    assert not any("interval(s) with throughput" in t for t in said), said


def test_every_figure_of_a_soak_result_is_declared_and_every_declared_one_given(tmp_path, monkeypatch):
    """The soak's result with inner runs (a serving workload whose TTFT rises: latency drift, findings) and without
    one (stopped before it began): every key is a figure of its record, and each figure it declares is given."""
    from workloads.result_record import STRICT_ENV
    from workloads.soak.result_record import SoakResult

    clock = FakeClock(step=0.25)   # each step in the interval it was made in: the soak reads the clock a few times each

    class Serving:
        async def events(self):
            yield protocol.Start(t=clock.t, workload="serve", device="cpu")
            for i in range(50):
                yield protocol.Step(t=clock(), step=i + 1, throughput=100.0, unit="tokens/s",
                                    extra={"ttft_ms_p50": 10.0 + i, "tpot_ms_p50": 5.0, "level": "concurrency 2"})
            yield protocol.End(t=clock.t, status="ok", exit_code=0)

        async def stop(self, grace_s=None):
            pass

    monkeypatch.setattr(soak_cli, "Runner", _runner_of(Serving, []))
    monkeypatch.setattr(soak_cli, "KernelLog", QuietKernelLog)
    monkeypatch.delenv(protocol.RUN_DIR_ENV, raising=False)
    monkeypatch.delenv(STRICT_ENV)   # the undeclared keys listed, rather than the first one raised
    results = []
    for stopped in (False, True):
        args = soak_cli.build_parser().parse_args(["--hours", str(60 / 3600), "--interval", "20", "--workload",
                                                   "serve", "--out", str(tmp_path)])
        soak = soak_cli.Soak(Emitter(stream=io.StringIO()), [("serve", [])], args, clock=clock)
        if stopped:
            soak.stop.set()
        asyncio.run(soak.run())
        results.append(soak.finish(stopped=stopped))
    for result in results:
        assert SoakResult.of(result).undeclared() == []
    assert {key for result in results for key in result} == {f.key for f in SoakResult.figures()} | {
        key for key in results[0] if key.startswith(("finding_", "rule_"))}
    ran, stopped = results
    assert ran["latency_drift_worst_pct"] > 20 and ran["first_workload"] == "serve concurrency 2"
    assert stopped["runs"] == 0 and stopped["stopped_early"] is True and "first_interval_median" not in stopped
