"""workloads.rundir.refused: a run directory goes only when it holds a refusal (exit 2) and nothing measured; any
step, result, fallback, file of the workload's own, rotated segment, torn line or other exit keeps it."""
from __future__ import annotations

from pathlib import Path

import pytest

from tui.store import RunStore
from workloads import protocol
from workloads.rundir import EVENTS, LIVE
from workloads.rundir.refused import measured_nothing, remove_refused

T0 = 1_700_000_000.0


def refused_run(tmp_path: Path, *between: protocol.Event, exit_code: int = 2) -> Path:
    """A run recorded as `cardbench run` records one: its start, ``between``, the error, the end."""
    run = RunStore(tmp_path / "runs").create("tick", ["--refuse-after", "0"])
    run.append(protocol.Start(t=T0, workload="tick", device="cpu", config={}, versions={}))
    for event in between:
        run.append(event)
    run.append(protocol.Error(t=T0 + 1, message="tick refuses", hint="a stand-in's refusal"))
    run.append(protocol.End(t=T0 + 1, status="failed", exit_code=exit_code))
    run.append_telemetry({"t": T0, "devices": []})   # the sampler's reading while it refused: not the run's
    run.close()
    return run.path


def test_a_refusal_with_nothing_measured_is_removed(tmp_path):
    path = refused_run(tmp_path, protocol.WorkloadWarning(t=T0, message="ran on the CPU", code="cpu_trap"))
    assert measured_nothing(path)
    assert remove_refused(path) and not path.exists()


@pytest.mark.parametrize("between", [
    protocol.Step(t=T0, step=1, throughput=10.0, unit="ticks/s"),
    protocol.Result(t=T0, metrics={"ticks_per_s": 10.0}),
    protocol.Fallback(t=T0, error="bf16 not supported", action="fp32"),
])
def test_a_run_that_measured_anything_is_kept(tmp_path, between):
    path = refused_run(tmp_path, between)
    assert not remove_refused(path) and (path / EVENTS).exists()


def test_a_failure_that_is_not_bad_input_is_kept(tmp_path):
    path = refused_run(tmp_path, exit_code=1)
    assert not remove_refused(path) and path.exists()


@pytest.mark.parametrize("extra", ["requests.csv", EVENTS.replace(".jsonl", ".0001.jsonl.gz"), LIVE])
def test_a_file_beyond_the_ones_every_run_has_keeps_it(tmp_path, extra):
    # a workload's own output, a rotated segment (many events), a live marker (someone records it still)
    path = refused_run(tmp_path)
    (path / extra).write_bytes(b"x")
    assert not remove_refused(path) and path.exists()


def test_a_line_that_does_not_decode_keeps_it(tmp_path):
    path = refused_run(tmp_path)
    events = path / EVENTS
    events.write_text('{"event": "step", "step": 1, "thr\n' + events.read_text())   # torn: it may have been a step
    assert not remove_refused(path) and path.exists()


def test_a_run_with_no_events_is_not_called_a_refusal(tmp_path):
    run = RunStore(tmp_path / "runs").create("tick", [])
    run.close()
    assert not remove_refused(run.path) and run.path.exists()
