import json

import pytest

from tui.store import RunStore, RunStoreError, load_run, runs_root
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
    assert list(record.telemetry) == [{"t": 1.0, "devices": []}]
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


def test_bad_lines_are_skipped_and_counted_and_a_bad_config_is_a_problem(tmp_path):
    run = RunStore(tmp_path).create("resnet50", ["--steps", "2"])
    run.append(protocol.Start(t=1.0, workload="resnet50"))
    run.append(protocol.Step(t=2.0, step=1, loss=0.5))
    run.append_telemetry({"t": 2.0, "devices": [{"index": 0, "temperature_c": 50}], "host": {"cpu_pct": 3}})
    run.close()
    with open(run.path / "events.jsonl", "a") as fh:
        fh.write('{"event":"step","t":3,"step":"abc","loss":"high"}\n'
                 '{"event":"result","t":4,"metrics":[1]}\n' + "[" * 200_000 + "]" * 200_000 + "\n")
    with open(run.path / "telemetry.jsonl", "a") as fh:
        fh.write('{"t":3,"host":5}\n{"t":4,"devices":{"a":1}}\n{"t":5,"devices":[{"temperature_c":"hot"}]}\n'
                 '{"host":{}}\n[1]\n' + "{" * 5 + "\n")
    (run.path / "config.json").write_text('["resnet50"]')
    record = load_run(run.path)
    assert [e.kind for e in record.events] == ["start", "step"] and record.skipped_lines == 3
    assert list(record.telemetry) == [{"t": 2.0, "devices": [{"index": 0, "temperature_c": 50}], "host": {"cpu_pct": 3}}]
    assert record.skipped_telemetry_lines == 6
    assert record.config == {} and record.problems == ["config.json holds a list, not an object; treated as empty"]
    assert record.workload == "resnet50"  # from the start event


def test_a_run_that_cannot_be_read_at_all_is_a_one_line_error(tmp_path):
    run = RunStore(tmp_path).create("resnet50", [])
    run.close()
    (run.path / "events.jsonl").unlink()
    (run.path / "events.jsonl").mkdir()
    with pytest.raises(RunStoreError, match=r"^cannot read .*events\.jsonl: Is a directory$"):
        load_run(run.path)
    with pytest.raises(RunStoreError, match=r"^\S+ is not a cardbench run directory \(no such directory\)$"):
        load_run(tmp_path / "gone")
    with pytest.raises(RunStoreError, match=r"not a cardbench run directory \(not a directory\)$"):
        load_run(run.path / "config.json")


def test_check_run_fails_where_load_run_would_without_reading(tmp_path):
    from tui.store import check_run

    good = RunStore(tmp_path).create("resnet50", [])
    good.append(protocol.Start(workload="resnet50"))
    good.close()
    check_run(good.path)
    with pytest.raises(RunStoreError, match="no such directory"):
        check_run(tmp_path / "gone")
    (good.path / "events.jsonl").unlink()
    check_run(good.path)  # created, nothing reported yet: load_run reads it as an empty run
    assert load_run(good.path).events == []
    (good.path / "events.jsonl").mkdir()
    with pytest.raises(RunStoreError, match="Is a directory"):
        check_run(good.path)


def test_telemetry_samples_are_checked_against_the_sample_types():
    from tui.store import telemetry_sample_ok

    device = {"index": 0, "name": "GPU", "util_gpu_pct": 50, "mem_used_bytes": 1.0, "throttle_reasons": ["hw"],
              "processes": [[1, "python", 10]], "future_field": {"x": [1]}}
    assert telemetry_sample_ok({"t": 1, "devices": [device], "host": {"per_core_pct": [1, None]},
                                "errors": ["nvml: timeout"], "sources": [], "new": [1]})
    assert telemetry_sample_ok({"t": 1.5})
    for bad in ({"t": "1"}, {"t": float("inf")}, {"t": True}, {"t": 1, "host": []}, {"t": 1, "devices": {}},
                {"t": 1, "devices": [5]}, {"t": 1, "devices": [{"name": 5}]}, {"t": 1, "errors": "x"},
                {"t": 1, "devices": [{"throttle_reasons": [[]]}]}, {"t": 1, "host": {"cpu_pct": "busy"}},
                {"t": 1, "devices": [{"mem_used_bytes": True}]}, [], None):
        assert not telemetry_sample_ok(bad), bad
    # fields no figure is read from are not checked: a process list, a version string, a later version's field
    for unread in ({"t": 1, "devices": [{"processes": [[1, 2]], "uuid": 7}]}, {"t": 1, "host": {"per_core_pct": 5}},
                   {"t": 1, "x": json.loads("[" * 40 + "]" * 40)}):
        assert telemetry_sample_ok(unread), unread
