"""A run's telemetry as columns (tui.store.telemetry): the fast decode and the slow way agree on what a usable
sample is, the columns say what the lines said, and a day fits in a fraction of the memory dicts took."""

from __future__ import annotations

import csv
import io
import json
import math
import random
import tracemalloc
from pathlib import Path

import pytest

from tui.report import device_telemetry
from tui.store import RunRecord
from tui.store.samples import telemetry_sample_ok
from tui.store.telemetry import Telemetry, read_telemetry

LINES = [
    b'{"t": 1.0, "devices": [{"index": 0, "bus_id": "b0", "name": "H100", "util_gpu_pct": 90, "mem_used_bytes": 5,'
    b' "mem_total_bytes": 10, "throttle_reasons": ["sw_power_cap"], "uuid": "GPU-1", "processes": [[1, "p", 3]]}],'
    b' "host": {"cpu_pct": 12.5, "mem_used_bytes": 7, "mem_total_bytes": 14}, "errors": [], "sources": ["nvml"]}',
    b'{"t": 2.0, "devices": [{"index": 0, "bus_id": "b0", "power_w": NaN, "temperature_c": 61}]}',     # NaN token
    b'{"t": 3.0, "devices": [{"index": 0, "bus_id": "b0", "power_w": null, "mem_used_bytes": 6.0}]}',  # null, float
    b'{"t": 4.0, "devices": [{"index": 0, "bus_id": "b0", "power_w": 1e999}], "later_field": {"a": [1]}}',
    b'{"t": 5.0, "devices": [{"index": 0, "bus_id": "b0", "ecc_corrected": 99999999999999999999999}]}',
    b'{"t": 6.0, "devices": [{"index": 0, "power_w": true}]}',              # a bool is not a number
    b'{"t": 7.0, "devices": [{"index": 0, "temperature_c": "hot"}]}',       # nor is text
    b'{"t": "8", "devices": []}',                                          # a time as text
    b'{"t": NaN}',
    b'{"t": 9.0, "devices": 5}',
    b'{"t": 10.0, "devices": [{"index": 0, "bus_id": "b0", "pro',          # torn by a crash
    b'not json',
    b'',
    b'{"t": 11, "devices": []}',
]


def _slow_way(lines):
    """What a line-by-line json + telemetry_sample_ok reader keeps."""
    kept = []
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if telemetry_sample_ok(data):
            kept.append(data)
    return kept


def test_the_fast_decode_keeps_what_the_sample_check_keeps():
    telemetry, skipped = read_telemetry(LINES)
    from_dicts = Telemetry.of(_slow_way(LINES))
    assert list(telemetry) == list(from_dicts)
    assert [s["t"] for s in telemetry] == [1.0, 2.0, 3.0, 4.0, 5.0, 11.0]
    assert skipped == len([line for line in LINES if line.strip()]) - 6


def test_the_columns_hold_what_the_lines_said_and_no_reading_is_none():
    telemetry, _ = read_telemetry(LINES)
    (card,) = telemetry.devices.values()
    assert card.key == "b0" and card.name[0] == "H100" and card.throttle[0] == ("sw_power_cap",)
    assert card.column("util_gpu_pct") == [90.0, None, None, None, None]
    assert card.column("temperature_c")[1] == 61.0
    assert card.column("power_w") == [None] * 5                      # NaN, null and an infinity: no reading
    assert card.column("mem_used_bytes")[:3] == [5, None, 6] and card.column("ecc_corrected")[4] is None
    assert card.used_pct()[0] == 50.0
    assert telemetry.host_column("cpu_pct") == [12.5] + [None] * 5
    # the newest sample whole, fields the columns do not keep included (the screen's device pane reads it)
    assert telemetry.newest() == {"t": 11, "devices": []}
    first, _ = read_telemetry(LINES[:1])
    assert first.newest()["devices"][0]["uuid"] == "GPU-1"


def test_time_order_is_known_as_samples_arrive():
    telemetry = Telemetry.of([{"t": 1.0}, {"t": 2.0}])
    assert telemetry.in_time_order()
    telemetry.add({"t": 1.5})   # the clock stepped back
    assert not telemetry.in_time_order()


def _samples(n: int, devices: int, seed: int = 7, every_device: bool = False) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        listed = []
        for k in range(devices if every_device else rng.choice(range(devices + 1))):
            d = {"index": k, "bus_id": f"0000:{k:02x}:00.0", "name": rng.choice(["A100", 'Card, "x"', "GPU\nZ"]),
                 "util_gpu_pct": rng.choice([90.0, 91.5, None]), "mem_used_bytes": rng.choice([1, 7 * 2**30, None]),
                 "mem_total_bytes": rng.choice([8 * 2**30, 0, None]), "temperature_c": 60.0 + i % 7,
                 "power_w": 100.25 + k, "pstate": rng.choice(["P0", None]), "health": rng.choice(["OK", None]),
                 "throttle_reasons": rng.choice([[], ["a", "b"], None]), "ecc_corrected": rng.choice([0, 3, None])}
            listed.append({key: v for key, v in d.items() if v is not None})
        sample = {"t": 1e9 + i * 0.5, "devices": listed}
        if i % 5:
            sample["host"] = {"cpu_pct": 12.5 + i % 3, "mem_used_bytes": 2**33 + i, "mem_total_bytes": 2**35}
        out.append(sample)
    return out


def _csv_row_by_row(run_id: str, samples: list[dict]) -> str:
    """telemetry.csv as a plain csv.writer writes it from the sample dicts."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(device_telemetry.TELEMETRY_COLUMNS)
    for s in samples:
        host = s.get("host") or {}
        hv = (host.get("cpu_pct"), host.get("mem_used_bytes"), host.get("mem_total_bytes"))
        if not s["devices"]:
            writer.writerow((run_id, s["t"], None, "host", *(None,) * 15, *hv))
        for d in s["devices"]:
            used, total = d.get("mem_used_bytes"), d.get("mem_total_bytes")
            reasons = d.get("throttle_reasons")
            writer.writerow((run_id, s["t"], d["index"], d.get("name"), d.get("util_gpu_pct"), None, used, total,
                             100.0 * used / total if used is not None and total else None, d.get("temperature_c"),
                             d.get("power_w"), None, None, None, d.get("pstate"),
                             None if reasons is None else ";".join(reasons), d.get("ecc_corrected"), None,
                             d.get("health"), *hv))
    return out.getvalue()


@pytest.mark.parametrize("every_device", [False, True])   # True: each piece's rows interleaved in one go
def test_telemetry_csv_is_what_csv_writer_writes_of_the_samples(every_device):
    # more than one chunk of samples; quoting, host-only rows, gaps
    samples = _samples(9000, devices=3, every_device=every_device)
    record = RunRecord(path=Path("/runs/run,1"), config={}, events=[], telemetry=samples)
    assert device_telemetry.telemetry_csv([record]) == _csv_row_by_row("run,1", samples)


def test_stability_reads_peaks_and_counters_by_time():
    def card(t, **fields):
        return {"t": t, "devices": [{"index": 0, "bus_id": "b0", "name": "H100", **fields}]}

    record = RunRecord(path=Path("/runs/r"), config={}, events=[], telemetry=[
        card(10.0, temperature_c=60.0, power_w=300.0, ecc_corrected=5, throttle_reasons=["hw_slowdown"]),
        card(11.0, temperature_c=75.5, sm_clock_mhz=1400.0, ecc_corrected=6, throttle_reasons=[]),
        card(12.0, power_w=None, sm_clock_mhz=1980.0, throttle_reasons=["hw_slowdown", "sw_power_cap"]),
        card(5.0, ecc_corrected=2),   # written last, read first: the clock stepped back
    ])
    (st,) = device_telemetry.stability([record])
    assert (st.samples, st.peak_temperature_c, st.peak_power_w) == (4, 75.5, 300.0)
    assert (st.min_sm_clock_mhz, st.max_sm_clock_mhz) == (1400.0, 1980.0)
    assert st.throttle == {"hw_slowdown": 2, "sw_power_cap": 1} and st.throttle_known
    assert st.ecc_corrected == (2, 6)   # first and last by time, not by line


def test_a_day_of_readings_is_held_in_columns_not_dicts():
    samples = _samples(2000, devices=8, seed=3)
    lines = [json.dumps(s).encode() for s in samples]
    readings = sum(len(s["devices"]) for s in samples)
    tracemalloc.start()
    try:
        telemetry, skipped = read_telemetry(lines)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert skipped == 0 and len(telemetry) == 2000
    # ~160 bytes a reading (arrays, interned names); as dicts these readings are ~870 (a real one ~3 KB)
    assert held / readings < 400, held / readings
    assert math.isclose(sum(len(c) for c in telemetry.devices.values()), readings)


def test_a_follower_keeps_its_time_axis_in_order():
    lines = [json.dumps({"t": t, "devices": []}).encode() for t in (1.0, 2.0, 1.5, 3.0, 3.0)] + [b'{"t": NaN}']
    telemetry = Telemetry()
    assert telemetry.add_lines(lines, after=0.5) == 1   # the NaN time; older samples are passed over, not bad
    assert list(telemetry.t) == [1.0, 2.0, 3.0]
    assert read_telemetry(lines)[1] == 1 and len(read_telemetry(lines)[0]) == 5


def test_lines_nested_past_the_decoders_depth_or_a_time_past_a_float_are_skipped():
    deep = b'{"t": 2.0, "devices": [{"index": 0, "processes": ' + b"[" * 3000 + b"]" * 3000 + b"}]}"
    huge = b'{"t": 1' + b"0" * 400 + b', "devices": []}'
    telemetry, skipped = read_telemetry([b'{"t": 1.0, "devices": []}', deep, huge])
    assert [s["t"] for s in telemetry] == [1.0] and skipped == 2
    assert not telemetry_sample_ok({"t": 10 ** 400})


def test_a_card_without_an_index_has_an_empty_index_cell_and_is_shown_under_its_place():
    record = RunRecord(path=Path("/runs/r"), config={}, events=[], telemetry=[
        {"t": 1.0, "devices": [{"index": 0, "bus_id": "A", "name": "H100"}, {"name": "PCI only", "bus_id": "B"}]}])
    rows = list(csv.DictReader(io.StringIO(device_telemetry.telemetry_csv([record]))))
    assert [r["device_index"] for r in rows] == ["0", ""]
    assert record.telemetry.devices["B"].label_index(0) == 1


def test_the_screenshot_s_device_table_falls_back_to_the_columns_when_the_process_list_is_odd():
    from tui.workbench.screenshot import last_sample

    telemetry, _ = read_telemetry([b'{"t": 5.0, "devices": [{"index": 0, "name": "H100", "util_gpu_pct": 50.0,'
                                   b' "processes": [[1, "p"]]}]}'])
    sample = last_sample([RunRecord(path=Path("/runs/r"), config={}, events=[], telemetry=telemetry)])
    assert sample is not None and sample.t == 5.0 and sample.devices[0].util_gpu_pct == 50.0


@pytest.mark.parametrize("newline", [b"\r\n", b"\n"])   # CRs: split as bytes.splitlines; else views of the bytes
def test_a_file_read_whole_gives_what_its_lines_give(newline):
    from tui.store.telemetry import read_telemetry_files

    clean = b"\n".join(json.dumps(s).encode() for s in _samples(300, devices=3)) + b"\n\n"
    damaged = newline.join(LINES)   # bad lines among good ones: each counted
    whole, skipped = read_telemetry_files([clean, damaged])
    by_line, skipped_by_line = read_telemetry(clean.splitlines() + damaged.splitlines())
    assert list(whole) == list(by_line) and skipped == skipped_by_line > 0
    assert whole.newest() == {"t": 11, "devices": []}
    assert read_telemetry_files([clean])[0].newest() == json.loads([line for line in clean.splitlines() if line][-1])


def test_every_sample_reads_back_as_it_was_listed_whatever_its_devices(monkeypatch):
    """Devices gathered a stretch of like samples at a time: a sample listing its cards in another order, one
    without a bus id, the same bus id twice, no devices at all; across batch ends. Each sample reads back with its
    devices in its own order and its own readings."""
    import tui.store.telemetry as telemetry_module

    monkeypatch.setattr(telemetry_module, "_BATCH", 7)
    rng = random.Random(5)
    shapes = [["A", "B"], ["B", "A"], ["A", None], ["A", "A"], [], ["A", "B", "C"]]
    lines, expected = [], []
    for i in range(200):
        shape = shapes[0] if rng.random() < 0.6 else rng.choice(shapes)
        devices = []
        for place, bus in enumerate(shape):
            d = {"index": place, "util_gpu_pct": float(rng.randrange(100)), "mem_used_bytes": i * 10 + place}
            if bus is not None:
                d["bus_id"] = bus
            devices.append(d)
        lines.append(json.dumps({"t": float(i), "devices": devices}).encode())
        expected.append([(d.get("bus_id"), d["util_gpu_pct"], d["mem_used_bytes"]) for d in devices])
    telemetry, skipped = read_telemetry(lines)
    assert skipped == 0 and len(telemetry) == 200
    for i, devices in enumerate(expected):
        got = telemetry.sample(i)["devices"]
        assert [(d.get("bus_id"), d["util_gpu_pct"], d["mem_used_bytes"]) for d in got] == devices, i
    for cols in telemetry.devices.values():   # each device's readings in sample order
        assert list(cols.pos) == sorted(cols.pos)


def _rotated_run(tmp_path: Path) -> Path:
    """telemetry.jsonl with five segments (gzipped and plain, one not gzip at all), bad lines, the live file."""
    import gzip

    samples = [json.dumps(s).encode() for s in _samples(600, devices=3)]
    parts = [samples[i:i + 100] for i in range(0, 600, 100)]
    for n, part in enumerate(parts[:5], 1):
        data = b"\n".join(part[:50] + [b"not json", b'{"t": "x"}'] + part[50:]) + b"\n"
        name = tmp_path / f"telemetry.{n:04d}.jsonl"
        if n == 2:
            Path(f"{name}.gz").write_bytes(b"torn")          # a gap, said as a problem
        elif n % 2:
            Path(f"{name}.gz").write_bytes(gzip.compress(data))
        else:
            name.write_bytes(data)
    live = tmp_path / "telemetry.jsonl"
    live.write_bytes(b"\n".join(parts[5]) + b"\n")
    return live


@pytest.mark.parametrize("child", ["works", "fails"])
def test_a_long_run_read_on_both_cores_is_the_run_read_in_order(tmp_path, monkeypatch, child):
    """The later segments decoded by a child process give what one reader in order gives: the samples, the lines
    skipped and the problems, in order; a child that fails leaves its parts to this process."""
    import tui.store.telemetry_read as telemetry_read
    from workloads.rundir.read import Unreadable

    live = _rotated_run(tmp_path)
    # where the user stands: a run given by a relative path, and a folder named tui the child must not import
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "__init__.py").write_text("raise ImportError('not cardbench')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONWARNINGS", "error")   # the child starts without a warning
    live = Path(live.name)
    if child == "fails":
        monkeypatch.setattr(telemetry_read.sys, "executable", "/bin/false")
    answers = []
    answer = telemetry_read._answer
    monkeypatch.setattr(telemetry_read, "_answer", lambda c: answers.append(answer(c)) or answers[-1])
    in_order_problems: list[str] = []
    # no child below so many segments: one reader, in order
    in_order, in_order_skipped = telemetry_read.read_telemetry_run(live, in_order_problems, split_from=10**6)
    problems: list[str] = []
    split, skipped = telemetry_read.read_telemetry_run(live, problems, split_from=2)
    assert len(answers) == 1 and (answers[0] is None) == (child == "fails")
    assert len(split) == len(in_order) == 500 and list(split) == list(in_order)
    assert split.order == in_order.order and split.newest() == in_order.newest()
    assert [list(c.pos) for c in split.devices.values()] == [list(c.pos) for c in in_order.devices.values()]
    assert skipped == in_order_skipped == 8 and problems == in_order_problems and len(problems) == 1
    live.unlink()
    live.mkdir()   # the live file unreadable: said as when read in order
    with pytest.raises(Unreadable):
        telemetry_read.read_telemetry_run(live, [], split_from=2)
