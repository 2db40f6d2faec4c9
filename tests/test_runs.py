import json
import os

import pytest

from tui.runs import RunStore, RunStoreError, load_run, runs_root
from workloads import protocol


def test_root_comes_from_argument_then_env_then_default(monkeypatch, tmp_path):
    monkeypatch.delenv("CARDBENCH_RUNS_DIR", raising=False)
    assert str(runs_root()) == "cardbench-runs"
    monkeypatch.setenv("CARDBENCH_RUNS_DIR", str(tmp_path / "env"))
    assert runs_root() == tmp_path / "env"
    assert runs_root(tmp_path / "arg") == tmp_path / "arg"


def test_a_run_is_rebuilt_from_disk_even_without_close(tmp_path):
    store = RunStore(tmp_path)
    run = store.create("resnet50", ["--steps", "2"], note="x")
    run.append(protocol.Start(workload="resnet50", device="cpu"))
    run.append(protocol.Step(step=1, loss=2.0, throughput=5.0, unit="images/s"))
    run.append_telemetry({"t": 1.0, "devices": []})
    # no close(): a killed workbench must still leave a readable run
    record = load_run(run.path)
    assert record.config["args"] == ["--steps", "2"] and record.config["note"] == "x"
    assert record.workload == "resnet50"
    assert [s.loss for s in record.steps] == [2.0]
    assert record.status == "incomplete"
    assert record.telemetry == [{"t": 1.0, "devices": []}]
    assert "step 1 | loss 2.0000" in record.log_text
    assert store.list() == [run.path]


def test_a_torn_last_line_is_skipped(tmp_path):
    run = RunStore(tmp_path).create("generate", [])
    run.append(protocol.Start(workload="generate"))
    run.close()
    with open(run.path / "events.jsonl", "a") as handle:
        handle.write('{"event": "step", "st')
    record = load_run(run.path)
    assert [e.kind for e in record.events] == ["start"]
    assert record.skipped_lines == 1


def test_unusable_root_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(RunStoreError, match="cannot create a run"):
        RunStore(blocker).create("resnet50", [])
    with pytest.raises(RunStoreError, match="not a cardbench run directory"):
        load_run(tmp_path)
