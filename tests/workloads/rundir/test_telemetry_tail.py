"""The run's telemetry.jsonl followed as it grows: whole lines once, what is not a sample skipped, rotations crossed."""

from __future__ import annotations

import json
import os

from workloads.rundir.telemetry_tail import TelemetryTail


def gpu(index=0, **fields):
    base = {"index": index, "sm_clock_mhz": 1980, "temperature_c": 60, "power_w": 500}
    base.update(fields)
    return base


def test_the_telemetry_tail_reads_whole_lines_once_and_skips_what_is_not_a_sample(tmp_path):
    path = tmp_path / "telemetry.jsonl"
    tail = TelemetryTail(path)
    assert tail.new_samples() == []               # not there yet
    path.write_text(json.dumps({"t": 1.0, "devices": [gpu(0), "junk"]}) + "\nnot json\n[1]\n{\"t\": \"x\"}\n"
                    + '{"t": 2.0, "devi')
    first = tail.new_samples()
    assert [s["t"] for s in first] == [1.0] and first[0]["devices"] == [gpu(0)]
    assert tail.skipped == 3
    with open(path, "a") as f:
        f.write('ces": []}\n')
    assert [s["t"] for s in tail.new_samples()] == [2.0]   # the torn line, once it is whole
    assert tail.new_samples() == []


def test_the_telemetry_tail_follows_the_store_across_a_rotation(tmp_path):
    path = tmp_path / "telemetry.jsonl"
    tail = TelemetryTail(path)
    with open(path, "w") as f:
        f.write("".join(json.dumps({"t": float(t)}) + "\n" for t in range(3)))
    assert [s["t"] for s in tail.samples()] == [0.0, 1.0, 2.0]
    with open(path, "a") as f:                       # written after the tail's last read, then rotated away
        f.write(json.dumps({"t": 3.0}) + "\n")
    os.replace(path, tmp_path / "telemetry.0001.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps({"t": 4.0}) + "\n")
    assert [s["t"] for s in tail.samples()] == [3.0, 4.0]
    assert list(tail.samples()) == []


def test_the_tail_of_a_run_reads_its_telemetry_file_and_nothing_without_a_run(tmp_path):
    (tmp_path / "telemetry.jsonl").write_text(json.dumps({"t": 1.0}) + "\n")
    assert [s["t"] for s in TelemetryTail.of_run(str(tmp_path)).samples()] == [1.0]
    assert TelemetryTail.of_run(None).new_samples() == []
