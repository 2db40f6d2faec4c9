"""Issue 23 item 1: one reader of a run directory (workloads.rundir.read), and every reader of a run's events sees
a rotated run's earlier segments (events.0001.jsonl.gz...) before the live events.jsonl."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from report_runs import T0
from tui.report.redact import Redactor
from tui.store.follow import RunFollower
from tui.store import RunStore, load_run
from workloads import protocol
from workloads.opscan.table import run_rows
from workloads.rundir import EVENTS
from workloads.rundir.read import iter_jsonl, read_all, read_config


def rotate_events(run_dir: Path, keep: int, segments: int = 2) -> None:
    """Move all but the last ``keep`` lines of events.jsonl into ``segments`` gzipped segments (the first plain
    when there are two or more, as one still being gzipped is), the way the store rotates a capped file."""
    live = run_dir / EVENTS
    lines = live.read_bytes().splitlines(keepends=True)
    head, tail = lines[:-keep], lines[-keep:]
    size = -(-len(head) // segments)
    for n in range(segments):
        part = b"".join(head[n * size:(n + 1) * size])
        if n == 0 and segments > 1:
            (run_dir / f"events.{n + 1:04d}.jsonl").write_bytes(part)
        else:
            with gzip.open(run_dir / f"events.{n + 1:04d}.jsonl.gz", "wb") as out:
                out.write(part)
    live.write_bytes(b"".join(tail))


def stepped_run(store: RunStore, steps: int = 30) -> Path:
    run = store.create("tick", ["--steps", str(steps)])
    run.append(protocol.Start(t=T0, workload="tick", device="Fake GPU", config={"steps": steps}, versions={}))
    for i in range(1, steps + 1):
        run.append(protocol.Step(t=T0 + i, step=i, throughput=100.0 + i, unit="items/s"))
    run.append(protocol.Result(t=T0 + steps + 1, metrics={"items_per_s": 110.0}))
    run.append(protocol.End(t=T0 + steps + 2, status="ok", exit_code=0))
    run.close()
    return run.path


def test_load_run_and_the_follower_read_every_segment_of_the_events(tmp_path):
    path = stepped_run(RunStore(tmp_path))
    whole = load_run(path)
    with open(path / EVENTS, "a") as handle:
        handle.write("{torn\n")
    rotate_events(path, keep=5)
    assert len(list(path.glob("events.*.jsonl*"))) == 2
    record = load_run(path)
    assert [e.to_dict() for e in record.events] == [e.to_dict() for e in whole.events]
    assert record.start is not None and len(record.steps) == 30 and record.status == "ok"
    assert record.skipped_lines == 1   # the torn line, in the live file, skipped and counted
    follower = RunFollower(path)
    followed = follower.record()
    follower.close()
    assert [e.to_dict() for e in followed.events] == [e.to_dict() for e in whole.events]
    assert followed.skipped_lines == 1


def test_the_reader_counts_bad_lines_and_names_an_unreadable_segment(tmp_path):
    (tmp_path / EVENTS).write_text('{"a": 1}\nnot json\n\n{"b": 2}\n')
    (tmp_path / "events.0001.jsonl.gz").write_bytes(b"not gzip at all")
    problems: list[str] = []
    assert read_all(tmp_path / EVENTS, problems) == [{"a": 1}, None, {"b": 2}]
    assert problems == ["events.0001.jsonl.gz cannot be read (events.0001.jsonl.gz: Not a gzipped file (b'no')); "
                        "the run's events.jsonl has a gap there"]
    assert list(iter_jsonl(tmp_path / EVENTS)) == [{"a": 1}, None, {"b": 2}]   # the torn .gz passed over
    (tmp_path / "config.json").write_text('{"workload": 3, "args": ["x"]}')
    problems = []
    assert read_config(tmp_path, problems) == {"args": ["x"]}
    assert problems == ["config.json: 'workload' is a number, not a string; ignored"]


def test_segments_are_read_ahead_in_order_and_a_bad_one_is_a_gap(tmp_path):
    import threading

    from workloads.rundir.read import Unreadable, read_buffers
    from workloads.rundir.segments import segment_paths

    def read_buffers_all(path, problems):   # every part in order, as one reader reads them
        return read_buffers([*segment_paths(path), path], path, problems)

    live = tmp_path / "telemetry.jsonl"
    (tmp_path / "telemetry.0001.jsonl.gz").write_bytes(b"not gzip at all")
    (tmp_path / "telemetry.0002.jsonl.gz").write_bytes(gzip.compress(b"two\n"))
    (tmp_path / "telemetry.0003.jsonl").write_bytes(b"three\n")
    problems: list[str] = []
    assert list(read_buffers_all(live, problems)) == [b"two\n", b"three\n"]   # no live file yet: none of it
    assert len(problems) == 1 and problems[0].startswith("telemetry.0001.jsonl.gz cannot be read")
    live.write_bytes(b"live\n")
    reader = read_buffers_all(live, [])
    assert next(reader) == b"two\n"
    reader.close()   # a reader that stops early leaves no thread behind
    assert not [t for t in threading.enumerate() if t.name.startswith("cardbench-read-segment")]
    live.unlink()
    live.mkdir()
    with pytest.raises(Unreadable):
        list(read_buffers_all(live, []))


def test_opscan_table_reads_a_result_in_a_rotated_segment(tmp_path):
    run = RunStore(tmp_path).create("opscan", [])
    run.append(protocol.Start(t=T0, workload="opscan", device="Fake GPU", config={}, versions={}))
    failures = [{"op": "aten::mm", "dtype": "fp16", "status": "error", "modules": []}]
    run.append(protocol.Result(t=T0 + 1, metrics={"failures": failures}))
    run.append(protocol.End(t=T0 + 2, status="ok", exit_code=0))
    run.close()
    rotate_events(run.path, keep=1, segments=1)   # the result rotated out with the start; the end is live
    assert run_rows(run.path) == failures


def test_the_redactor_finds_the_start_event_in_the_first_segment(tmp_path):
    secret = "pw-Zq81vX0rTt55"
    run = RunStore(tmp_path).create("tick", [])
    run.append(protocol.Start(t=T0, workload="tick", device="Fake GPU", config={"api_key": secret}, versions={}))
    for i in range(1, 11):
        run.append(protocol.Step(t=T0 + i, step=i, throughput=100.0, unit="items/s"))
    run.close()
    rotate_events(run.path, keep=3, segments=1)   # the start event is in events.0001.jsonl.gz
    redactor = Redactor(environ={})
    redactor.learn_run_dir(run.path)
    assert secret not in redactor.text(f"the key {secret} leaked")
