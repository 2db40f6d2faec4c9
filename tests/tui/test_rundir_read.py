"""Issue 23 item 1: one reader of a run directory (workloads.rundir.read), and every reader of a run's events sees
a rotated run's earlier segments (events.0001.jsonl.gz...) before the live events.jsonl."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from report_runs import T0
from tui.redact import Redactor
from tui.store.follow import RunFollower
from tui.store import RunStore, load_run
from workloads import protocol
from workloads.rundir.ops_csv import run_rows
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


# --- issue 37 item 11: attaching reads a run's events in bounded memory and time --------------------------------

_START = (b'{"event": "start", "t": 1.0, "workload": "tick", "device": "cpu", "config": {}, "versions": {}}\n')
# the child: RunFollower.record() under an address-space limit (a regression raises MemoryError at once instead of
# swapping), then what the follower reads after it; one JSON line back
_ATTACH_CHILD = r"""
import json, resource, sys, time
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from tui.store.follow import RunFollower
began = time.perf_counter()
follower = RunFollower(sys.argv[1])
record = follower.record()
took = time.perf_counter() - began
with open(sys.argv[1] + "/events.jsonl", "ab") as handle:
    handle.write(sys.argv[3].encode())
later, _ = follower.read()
follower.close()
print(json.dumps({"s": took, "max": getattr(follower, "max_events", None), "kinds": [e.kind for e in record.events[:2]], "steps": [s.step for s in record.steps],
                  "older": follower.older_events, "last": follower.last_events, "long": follower.long_lines,
                  "skipped": record.skipped_lines, "later": [e.step for e in later]}))
"""
_AS_LIMIT = 256 << 20   # the follower needs ~75 MiB of address space here; the code before needed 310 MiB


def _attach_in_a_child(run: Path, then: bytes) -> dict:
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}   # glibc's per-thread arenas reserve 64 MiB of address space each
    done = subprocess.run([sys.executable, "-c", _ATTACH_CHILD, str(run), str(_AS_LIMIT), then.decode()],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_attaching_shows_the_last_events_of_a_long_run_and_passes_over_a_64_mib_line(tmp_path):
    run = tmp_path / "20260101-000000-tick-long"
    run.mkdir()
    total = 200_000   # short step lines, one of 64 MiB among the last ones
    with open(run / EVENTS, "wb") as handle:
        handle.write(_START)
        for i in range(1, total + 1):
            if i == total - 10_000:
                handle.write(b'{"event": "warning", "t": 2.0, "message": "')
                for _ in range(64):
                    handle.write(b"x" * (1 << 20))
                handle.write(b'"}\n')
            handle.write(b'{"event":"step","t":%d,"step":%d}\n' % (i, i))
        handle.write(b'{"event":"step","t":%d,' % (total + 1))   # a line still being written
    said = _attach_in_a_child(run, then=b'"step":%d}\n' % (total + 1))
    # the run's start, then its last ATTACH_EVENTS (100,000) events: the long line passed over, counted, never held
    shown = said["max"]
    assert shown == 100_000 and said["kinds"] == ["start", "step"] and said["older"] and said["last"] == shown
    assert said["steps"] == list(range(total - shown + 1, total + 1))
    assert said["long"] == 1 and said["skipped"] == 1
    assert said["later"] == [total + 1]   # followed on from the end: the unfinished line, once whole
    assert said["s"] < 30.0, said["s"]    # 0.5 s here (30: a loaded CI machine); the whole file read and decoded took 2.1 s and 310 MiB


def test_a_line_of_gigabytes_is_neither_held_nor_read_to_its_end(tmp_path):
    run = tmp_path / "20260101-000000-tick-sparse"
    run.mkdir()
    with open(run / EVENTS, "wb") as handle:
        handle.write(_START)
        handle.write(b"".join(b'{"event":"step","t":%d,"step":%d}\n' % (i, i) for i in range(1, 11)))
        handle.seek(handle.tell() + (8 << 30))   # 8 GiB of NUL bytes without a newline: a hole, not disk
        handle.write(b'\n{"event":"step","t":11,"step":11}\n')
    with open(run / "telemetry.jsonl", "wb") as handle:   # and a live telemetry file of one 8 GiB line
        handle.truncate(8 << 30)
    said = _attach_in_a_child(run, then=b'{"event":"step","t":12,"step":12}\n')
    # read back from the end until the budget: the newest step, the start kept; what is before the line left out
    assert said["kinds"] == ["start", "step"] and said["steps"] == [11] and said["older"]
    assert said["later"] == [12] and said["s"] < 30.0, said


def test_the_last_lines_reader_and_the_line_splitter_agree_with_a_plain_split():
    import io
    import random

    from workloads.rundir import tail

    rng = random.Random(37)
    for _ in range(3000):
        data = b"".join(b"x" * rng.choice([0, 1, 2, 5, 8, 13]) + rng.choice([b"\n", b" \n"])
                        for _ in range(rng.randint(0, 12))) + b"y" * rng.choice([0, 0, 3])
        keep, max_line, chunk = rng.randint(1, 6), rng.choice([4, 6, 100]), rng.choice([1, 2, 3, 5, 64])
        lines = data[:data.rfind(b"\n") + 1].split(b"\n")[:-1]
        wanted = [line for line in lines if len(line) <= max_line and line.strip()]
        old_chunk, tail.CHUNK = tail.CHUNK, chunk
        try:
            got = tail.last_lines(io.BytesIO(data), keep, budget=1 << 20, max_line=max_line)
        finally:
            tail.CHUNK = old_chunk
        assert got.lines == wanted[-keep:] and got.end == data.rfind(b"\n") + 1, (data, keep, max_line, got)
        assert got.more or len(wanted) <= keep
        assert got.more or got.too_long == sum(len(line) > max_line for line in lines)
        splitter, fed, at = tail.LineSplitter(max_line), [], 0
        while at < len(data):
            step = rng.randint(1, 7)
            fed += splitter.feed(data[at:at + step])
            at += step
        assert fed == [line for line in lines if len(line) <= max_line]
        assert splitter.too_long == sum(len(line) > max_line for line in lines)
