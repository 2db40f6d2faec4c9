"""The soak's and serve's view of their run's telemetry: whole lines once, across the store's rotations, a line that
is not a sample skipped and counted (workloads.rundir.telemetry_tail, over the one tailer workloads.rundir.tail)."""

from __future__ import annotations

import json
import os

from workloads.rundir.telemetry_tail import TelemetryTail


def gpu(index=0):
    return {"index": index, "name": "Fake GPU", "util_gpu_pct": 50.0}


def test_the_telemetry_tail_reads_whole_lines_once_and_skips_what_is_not_a_sample(tmp_path):
    path = tmp_path / "telemetry.jsonl"
    tail = TelemetryTail(path)
    assert tail.samples() == []               # not there yet
    path.write_text(json.dumps({"t": 1.0, "devices": [gpu(0), "junk"]}) + "\nnot json\n[1]\n{\"t\": \"x\"}\n"
                    + '{"t": 2.0, "devi')
    first = tail.samples()
    assert [s["t"] for s in first] == [1.0] and first[0]["devices"] == [gpu(0)]
    assert tail.skipped == 3
    with open(path, "a") as f:
        f.write('ces": []}\n')
    assert [s["t"] for s in tail.samples()] == [2.0]   # the torn line, once it is whole
    assert tail.samples() == []


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
    assert tail.samples() == []


def test_two_rotations_between_reads_lose_no_sample_and_a_huge_line_is_passed_over(tmp_path):
    """The soak's own tailer read only the file it had open and the next one: a segment rotated in between was lost."""
    path = tmp_path / "telemetry.jsonl"
    tail = TelemetryTail(path)
    path.write_text(json.dumps({"t": 0.0}) + "\n")
    assert [s["t"] for s in tail.samples()] == [0.0]
    with open(path, "a") as f:
        f.write(json.dumps({"t": 1.0}) + "\n")
    os.replace(path, tmp_path / "telemetry.0001.jsonl")
    path.write_text(json.dumps({"t": 2.0}) + "\n" + "x" * (2 << 20) + "\n")
    os.replace(path, tmp_path / "telemetry.0002.jsonl")
    path.write_text(json.dumps({"t": 3.0}) + "\n")
    assert [s["t"] for s in tail.samples()] == [1.0, 2.0, 3.0] and tail.skipped == 1
    tail.close()
