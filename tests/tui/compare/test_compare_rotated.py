"""Issue 23 item 1: compare of a run directory reads a rotated run's earlier events (events.0001.jsonl[.gz]), not
only the live events.jsonl; a gzipped segment is inflated under compare's caps."""
from __future__ import annotations

import gzip

import pytest
from compare_runs import resnet_like
from tui.compare import bundle_reader
from tui.compare.load import CompareError, load_side
from tui.store import RunStore


def _rotate(run_dir, keep):
    live = run_dir / "events.jsonl"
    lines = live.read_bytes().splitlines(keepends=True)
    head, tail = lines[:-keep], lines[-keep:]
    half = len(head) // 2
    (run_dir / "events.0001.jsonl").write_bytes(b"".join(head[:half]))    # still being gzipped: plain
    with gzip.open(run_dir / "events.0002.jsonl.gz", "wb") as out:
        out.write(b"".join(head[half:]))
    live.write_bytes(b"".join(tail))


def test_a_rotated_run_directory_compares_as_the_whole_run(tmp_path):
    rates = [float(r) for r in range(100, 140)]
    whole = load_side(str(resnet_like(RunStore(tmp_path / "a"), rates)), "A")
    rotated = resnet_like(RunStore(tmp_path / "b"), rates)
    _rotate(rotated, keep=4)
    side = load_side(str(rotated), "B")
    assert side.runs["resnet50"].rates == whole.runs["resnet50"].rates == rates
    assert side.runs["resnet50"].headline == whole.runs["resnet50"].headline


def test_a_gzipped_segment_that_inflates_past_the_cap_is_refused_by_name(tmp_path, monkeypatch):
    run = resnet_like(RunStore(tmp_path), [100.0] * 5)
    _rotate(run, keep=2)
    with gzip.open(run / "events.0002.jsonl.gz", "wb") as out:
        out.write(b" " * 200_000)   # 200 kB of blanks, a few hundred bytes packed
    monkeypatch.setattr(bundle_reader, "CAP_EVENTS", bundle_reader.Cap(100_000, "a run's events.jsonl"))
    with pytest.raises(CompareError, match=r"events\.0002\.jsonl\.gz grows past 100,000 bytes"):
        load_side(str(run), "A")
