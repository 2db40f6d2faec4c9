"""Issue 13 item 4: run.log and telemetry.jsonl rotated into gzipped segments and capped; read back whole."""
from __future__ import annotations

import gzip

import pytest

from tui.store import follow as run_follow
from workloads.rundir import segments as run_segments
from tui.store.follow import RunFollower
from tui.store import RunStore, load_run
from workloads import protocol


def _sample(i: int) -> dict:
    return {"t": 1_000_000.0 + i, "devices": [{"index": d, "name": "NVIDIA H100", "util_gpu_pct": float(i % 100),
                                               "temperature_c": 50.0} for d in range(8)],
            "host": {"cpu_pct": 10.0}, "sources": ["fake"]}


@pytest.fixture
def small_caps(monkeypatch):
    monkeypatch.setattr(run_segments, "TELEMETRY_SEGMENT_BYTES", 16_384)
    monkeypatch.setattr(run_segments, "LOG_SEGMENT_BYTES", 4_096)
    monkeypatch.setattr(run_segments, "THIN_EVERY", 1)  # no thinned copies unless a test asks


def test_a_long_run_is_rotated_into_gzipped_segments_and_read_back_whole(tmp_path, small_caps):
    run = RunStore(tmp_path).create("tick", [])
    for i in range(600):
        run.append_telemetry(_sample(i))
        run.log(f"line {i}")
    run.close()
    segments = sorted(p.name for p in run.path.glob("telemetry.*.jsonl.gz"))
    assert len(segments) >= 10 and segments[0] == "telemetry.0001.jsonl.gz"
    assert (run.path / "telemetry.jsonl").stat().st_size < 16_384 + 2_000
    assert sorted(p.name for p in run.path.glob("run.*.log.gz"))[0] == "run.0001.log.gz"
    assert not list(run.path.glob("*.jsonl.gz.part")) and not list(run.path.glob("telemetry.0*.jsonl"))
    record = load_run(run.path)
    assert [s["t"] for s in record.telemetry] == [1_000_000.0 + i for i in range(600)]
    assert [line.split("] ", 1)[1] for line in record.log_text.splitlines()] == [f"line {i}" for i in range(600)]
    assert record.problems == [] and record.skipped_telemetry_lines == 0
    # gzipped, the segments hold their lines in a fraction of the bytes
    packed = sum(p.stat().st_size for p in run.path.glob("telemetry.*.jsonl.gz"))
    lines = sum(len(gzip.decompress(p.read_bytes())) for p in run.path.glob("telemetry.*.jsonl.gz"))
    assert packed * 5 < lines


def test_past_the_cap_the_oldest_segments_but_the_first_go_and_the_gap_is_said(tmp_path, small_caps, monkeypatch):
    monkeypatch.setattr(run_segments, "TELEMETRY_KEEP_BYTES", 3_000)
    run = RunStore(tmp_path).create("tick", [])
    for i in range(1200):
        run.append_telemetry(_sample(i))
    run.close()
    packed = sorted(run.path.glob("telemetry.*.jsonl.gz"))
    assert packed[0].name == "telemetry.0001.jsonl.gz"  # the run's start is kept
    assert sum(p.stat().st_size for p in packed) <= 3_000 + max(p.stat().st_size for p in packed)
    record = load_run(run.path)
    ts = [s["t"] for s in record.telemetry]
    assert ts[0] == 1_000_000.0 and ts[-1] == 1_000_000.0 + 1199 and ts == sorted(ts) and len(ts) < 1200
    [note] = [p for p in record.problems if "telemetry.jsonl" in p]
    assert "deleted by the size cap" in note and f"({1200 - len(ts)} lines)" in note


def test_a_follower_sees_every_event_and_sample_once_across_a_rotation(tmp_path, small_caps):
    run = RunStore(tmp_path).create("tick", [])
    run.append(protocol.Start(workload="tick", config={}, device="cpu"))
    for i in range(50):
        run.append_telemetry(_sample(i))
    # a line being written: not an event yet
    run._events.write('{"event": "step", "step"')
    run._events.flush()
    follower = RunFollower(run.path)
    record = follower.record()
    assert [e.kind for e in record.events] == ["start"] and len(record.telemetry) == 50
    run._events.write(': 1, "t": 5.0}\n')
    run._events.flush()
    for i in range(50, 400):  # rotates several times
        run.append_telemetry(_sample(i))
    events, samples = follower.read()
    assert [(e.kind, e.step) for e in events] == [("step", 1)]
    seen = [s["t"] for s in [*record.telemetry, *samples]]
    for i in range(400, 420):
        run.append_telemetry(_sample(i))
    seen += [s["t"] for s in follower.read()[1]]
    assert seen == [1_000_000.0 + i for i in range(420)]
    assert follower.read() == ([], [])
    run.close()
    follower.close()


def test_a_long_run_is_attached_from_one_sample_in_k_with_its_first_and_last(tmp_path, small_caps):
    run = RunStore(tmp_path).create("tick", [])
    for i in range(95):
        run.append_telemetry(_sample(i))
    follower = RunFollower(run.path, max_samples=10)
    ts = [s["t"] - 1_000_000.0 for s in follower.record().telemetry]
    assert follower.stride == 10 and ts == [*range(0, 95, 10), 94]
    run.append_telemetry(_sample(95))
    assert [s["t"] - 1_000_000.0 for s in follower.read()[1]] == [95]  # what follows comes whole
    run.close()
    follower.close()


def test_the_workbench_reads_a_rotated_segments_thinned_copy_and_the_report_the_segment(tmp_path, small_caps,
                                                                                       monkeypatch):
    monkeypatch.setattr(run_segments, "THIN_EVERY", 10)
    monkeypatch.setattr(run_follow, "LIVE_WHOLE", 3)
    run = RunStore(tmp_path).create("tick", [])
    n = 0
    live_file = run.path / "telemetry.jsonl"
    while n < 600 or live_file.read_text().count("\n") < 15:  # the live file thinned too, but for its last lines
        run.append_telemetry(_sample(n))
        n += 1
    run.close()
    segments = sorted(run.path.glob("telemetry.[0-9]*[0-9].jsonl.gz"))
    thins = sorted(run.path.glob("telemetry.*.thin.jsonl.gz"))
    assert len(thins) == len(segments) >= 10
    for segment, thin in zip(segments, thins):  # its first line, every tenth, and its last
        lines = gzip.decompress(segment.read_bytes()).splitlines()
        assert gzip.decompress(thin.read_bytes()).splitlines() == lines[::10] + (
            [lines[-1]] if (len(lines) - 1) % 10 else [])
    follower = RunFollower(run.path)
    ts = [s["t"] - 1_000_000.0 for s in follower.record().telemetry]
    follower.close()
    assert follower.thinned == len(segments) and follower.stride == 1
    live = list(range(n - live_file.read_text().count("\n"), n))
    assert ts[0] == 0 and ts[-1] == n - 1 and ts == sorted(set(ts)) and len(ts) < n // 3
    expected_live = live[:-3][::10] + live[-3:]
    assert ts[-len(expected_live):] == expected_live
    assert len(load_run(run.path).telemetry) == n  # the report reads every sample


def _step(i: int) -> protocol.Step:
    return protocol.Step(step=i, t=1_000_000.0 + i, loss=1.0 / i, throughput=100.0, unit="it/s")


def test_events_rotate_and_a_follower_reads_each_once_however_many_rotations_fall_between_reads(
        tmp_path, small_caps, monkeypatch):
    """One tail for every rotating file: the segment it had open is passed over (it drained it), gzipped or
    not; the ones made between two reads are read whole. It read the old file's segment again, twice over."""
    monkeypatch.setattr(run_segments, "EVENTS_SEGMENT_BYTES", 2_048)
    run = RunStore(tmp_path).create("tick", [])
    run.append(protocol.Start(workload="tick", config={}, device="cpu"))
    follower = RunFollower(run.path)
    seen = [e.step for e in follower.record().events if e.kind == "step"]
    n = 0
    for burst in (1, 30, 3, 200, 1, 60):   # under a segment, about one, several between two reads
        for _ in range(burst):
            n += 1
            run.append(_step(n))
        run._events._gzip and run._events._gzip.join()   # let the last segment be gzipped, sometimes mid-burst
        seen += [e.step for e in follower.read()[0]]
    assert len(list(run.path.glob("events.*.jsonl.gz"))) >= 10
    assert seen == list(range(1, n + 1))
    run.close()
    follower.close()
    record = load_run(run.path)
    assert [e.kind for e in record.events][:2] == ["start", "step"] and len(record.events) == n + 1
    assert record.problems == []


def test_past_the_events_cap_the_start_stays_and_the_gap_is_said(tmp_path, small_caps, monkeypatch):
    monkeypatch.setattr(run_segments, "EVENTS_SEGMENT_BYTES", 2_048)
    monkeypatch.setattr(run_segments, "EVENTS_KEEP_BYTES", 2_000)
    run = RunStore(tmp_path).create("tick", [])
    run.append(protocol.Start(workload="tick", config={}, device="cpu"))
    for i in range(1, 601):
        run.append(_step(i))
    run.append(protocol.End(status="ok", exit_code=0))
    run.close()
    assert sorted(run.path.glob("events.*.jsonl.gz"))[0].name == "events.0001.jsonl.gz"
    record = load_run(run.path)
    kinds = [e.kind for e in record.events]
    steps = [e.step for e in record.events if e.kind == "step"]
    assert kinds[0] == "start" and kinds[-1] == "end" and steps == sorted(steps) and len(steps) < 600
    [note] = [p for p in record.problems if "events.jsonl" in p]
    assert "deleted by the size cap" in note and f"({600 - len(steps)} lines)" in note
