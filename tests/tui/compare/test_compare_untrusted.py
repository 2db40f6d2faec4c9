"""`cardbench compare` on bundles other people send: bombs, special files, damaged members, absurd figures and
prices, and text that would drive the terminal. Each is one line and exit 2, or clean output (issue 21, 2-4)."""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import pytest

from compare_runs import bundle, one_line_exit_2, resnet_like
from tui.runs import RunStore

FAST = [1000.0, 980.0, 1020.0, 1000.0, 990.0, 1010.0]


@pytest.fixture
def run(tmp_path):
    return resnet_like(RunStore(tmp_path / "runs"), FAST)


def test_a_zip_bomb_is_refused_before_it_is_inflated_and_leaves_nothing(compare, run, tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    bomb = bundle(tmp_path / "bomb.zip", run, events=lambda ev: ev + "\n" * (64 << 20))   # 64 MiB of newlines
    assert bomb.stat().st_size < 200_000
    one_line_exit_2(*compare(run, bomb), "inflates 1,0")
    assert list(tmp.iterdir()) == []   # no temporary file left behind


def test_a_member_past_its_cap_is_named(compare, run, tmp_path, monkeypatch):
    from tui.compare import bundle_reader

    monkeypatch.setattr(bundle_reader, "CAP_TOTAL", 4096)
    big = bundle(tmp_path / "big.zip", run, summary={"host": "x" * 8000, "runs": [{"run_id": run.name}]},
                 compression=zipfile.ZIP_STORED)
    code, out, err = compare(run, big)
    one_line_exit_2(code, out, err, "member top/metrics/summary.json would take the input past 4,096 bytes in all")


def test_a_header_that_lies_about_the_size_is_not_believed(compare, run, tmp_path):
    honest = bundle(tmp_path / "honest.zip", run)
    data = bytearray(honest.read_bytes())
    name = f"top/logs/{run.name}/events.jsonl".encode()
    # the central directory's entry for events.jsonl: say it inflates to 10 bytes
    at = data.index(b"PK\x01\x02" + data[data.index(b"PK\x01\x02") + 4:data.index(b"PK\x01\x02") + 4][:0])
    while True:
        at = data.index(b"PK\x01\x02", at)
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46:at + 46 + length]) == name:
            struct.pack_into("<I", data, at + 24, 10)
            break
        at += 4
    liar = tmp_path / "liar.zip"
    liar.write_bytes(bytes(data))
    one_line_exit_2(*compare(run, liar), "is damaged")


def test_a_corrupted_member_is_one_line(compare, run, tmp_path):
    good = bundle(tmp_path / "good.zip", run)
    data = bytearray(good.read_bytes())
    start = data.index(b"PK\x03\x04", data.index(b"events.jsonl") - 60)
    body = start + 30 + struct.unpack_from("<H", data, start + 26)[0] + struct.unpack_from("<H", data, start + 28)[0]
    for i in range(body + 10, body + 60):
        data[i] ^= 0x5A
    bad = tmp_path / "bad.zip"
    bad.write_bytes(bytes(data))
    one_line_exit_2(*compare(run, bad), "is damaged")


def test_special_files_are_refused_without_being_read(compare, run, tmp_path):
    one_line_exit_2(*compare(run, "/dev/zero"), "/dev/zero is a device, not a report bundle")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "tui.cli", "compare", str(run), str(fifo)], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)   # a hang fails the timeout
    assert done.returncode == 2 and done.stderr.strip().endswith("is a FIFO, not a report bundle (.zip) or a run "
                                                                 "directory")


@pytest.mark.parametrize("summary, events, said", [
    ('{"a":' * 100_000 + "1" + "}" * 100_000, None, "holds JSON nested too deeply to read"),
    ({"runs": 5}, None, '"runs" is not a list'),
    ([1, 2], None, "metrics/summary.json is not an object"),
    (b"\xff\xfe not utf-8", None, "metrics/summary.json is not"),
    (b"\xff not utf-8", None, "metrics/summary.json is not UTF-8 text"),
    ("{not json", None, "metrics/summary.json is not JSON"),
    (None, lambda ev: ev.replace('"throughput":1000.0', '"throughput":1e308'), "outside any card's range"),
    (None, lambda ev: ev.replace('"images_per_s":1000.0', '"images_per_s":1e308'), "outside any card's range"),
    (None, lambda ev: ev.replace('"throughput":1000.0', '"throughput":NaN'), ""),
    ({"runs": "RUN", "cost": {"price_per_hour": 1e-300, "currency": "CNY"}}, None, "the bundle's price 1e-300 is not"),
    ({"runs": "RUN", "cost": {"price_per_hour": 1e300, "currency": "CNY"}}, None, "the bundle's price 1e+300 is not"),
    ({"runs": "RUN", "cost": {"price_per_hour": -5, "currency": "CNY"}}, None, "the bundle's price -5 is not"),
    ({"runs": "RUN", "cost": {"price_per_hour": "6.5", "currency": "CNY"}}, None, "the bundle's price '6.5' is not"),
    ({"runs": "RUN", "cost": {"price_per_hour": 6.5, "currency": "C" * 100_000}}, None, "is not a currency"),
])
def test_a_bundle_out_of_shape_or_range_is_one_line_and_exit_2(compare, run, tmp_path, summary, events, said):
    if isinstance(summary, dict) and summary.get("runs") == "RUN":
        summary["runs"] = [{"run_id": run.name}]
    odd = bundle(tmp_path / "odd.zip", run, summary=summary, events=events)
    code, out, err = compare(run, odd)
    if said:
        one_line_exit_2(code, out, err, said)
        assert len(err) < 500
    else:   # a NaN step is dropped like any unusable step: the comparison goes on
        assert code == 0 and "Traceback" not in err


def test_a_bundle_s_text_cannot_drive_the_terminal(compare, run, tmp_path):
    hostile = "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J\x9b31m\u202e"
    odd = bundle(tmp_path / "odd.zip", run, summary={"host": f"box|{hostile}\nnext", "runs": [{"run_id": run.name}]},
                 events=lambda ev: ev.replace('"device":"Fake GPU 80GB"', f'"device":{json.dumps("GPU" + hostile)}'))
    out_dir = tmp_path / "out"
    code, out, err = compare(run, odd, "-o", out_dir)
    assert code == 0, err
    for text in (out, err, *(p.read_text() for p in out_dir.glob("compare.*") if p.suffix != ".png")):
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), text[:200]
    line = next(x for x in out.splitlines() if x.startswith("| B "))
    assert "box\\|" in line and "next" in line   # the host's | and newline do not break its table row
