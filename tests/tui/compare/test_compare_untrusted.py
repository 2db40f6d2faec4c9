"""`cardbench compare` on bundles other people send: bombs, special files, damaged members, absurd figures and
prices, and text that would drive the terminal. Each is one line and exit 2, or clean output (issue 21, 2-4)."""
import json
import os
import struct
import tempfile
import zipfile

import pytest

from compare_runs import bundle, cardbench_compare, one_line_exit_2, resnet_like
from tui.store import RunStore

FAST = [1000.0, 980.0, 1020.0, 1000.0, 990.0, 1010.0]


@pytest.fixture
def run(tmp_path):
    return resnet_like(RunStore(tmp_path / "runs"), FAST)


def _patched_entry(bundle_path, member, **fields):
    """The bundle with ``member``'s central directory entry saying what ``fields`` say (file_size, compress_size)."""
    data = bytearray(bundle_path.read_bytes())
    offsets = {"compress_size": 20, "file_size": 24}
    at = 0
    while True:
        at = data.index(b"PK\x01\x02", at)
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46:at + 46 + length]) == member.encode():
            for field, value in fields.items():
                struct.pack_into("<I", data, at + offsets[field], value)
            break
        at += 4
    bundle_path.write_bytes(bytes(data))
    return bundle_path


def test_a_zip_bomb_is_refused_before_it_is_inflated_and_leaves_nothing(compare, run, tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    bomb = bundle(tmp_path / "bomb.zip", run, events=lambda ev: ev + "\n" * (64 << 20))   # 64 MiB of newlines
    assert bomb.stat().st_size < 200_000
    code, out, err = compare(run, bomb)
    one_line_exit_2(code, out, err, f"member top/logs/{run.name}/events.jsonl inflates 1,0")
    assert "over the cap of 200x" in err
    assert list(tmp.iterdir()) == []   # no temporary file left behind


def test_a_member_past_its_cap_is_named(compare, run, tmp_path, monkeypatch):
    from tui.compare import bundle_reader

    monkeypatch.setattr(bundle_reader, "CAP_TOTAL", 4096)
    big = bundle(tmp_path / "big.zip", run, summary={"host": "x" * 8000, "runs": [{"run_id": run.name}]},
                 compression=zipfile.ZIP_STORED)
    code, out, err = compare(run, big)
    one_line_exit_2(code, out, err, "member top/metrics/summary.json would take the input past 4,096 bytes in all")


@pytest.mark.parametrize("cap, value, said", [
    ("CAP_MEMBERS", 50, "holds 63 members, over the cap of 50 members on a bundle"),
    ("CAP_DIRECTORY", 1024, "bytes, over the cap of 1,024 bytes on a bundle's central directory"),
])
def test_a_bundle_of_too_many_members_is_refused_before_its_directory_is_parsed(compare, run, tmp_path,
                                                                                 monkeypatch, cap, value, said):
    """zipfile keeps ~1 kB per member: a 20 MB zip of 200,000 empty members took 218 MB before compare read a byte
    of it, a 1 GB one would take ten times its size. The caps (small here) are read from the end record first."""
    from tui.compare import bundle_reader

    monkeypatch.setattr(bundle_reader, cap, value)
    crowded = bundle(tmp_path / "crowded.zip", run, extra=[(f"top/x/{i:03d}", "") for i in range(60)])
    parsed = []
    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", lambda self: parsed.append(self))
    code, out, err = compare(run, crowded)
    one_line_exit_2(code, out, err, f"cardbench compare: {crowded}: ")
    assert said in err and not parsed


def test_a_header_that_lies_about_the_size_is_not_believed(compare, run, tmp_path):
    """4 MiB of events whose header says 10 bytes (so no cap is crossed on paper): inflating stops at 10 bytes and
    the member is named as damaged, whatever the stream had left."""
    member = f"top/logs/{run.name}/events.jsonl"
    liar = _patched_entry(bundle(tmp_path / "liar.zip", run, events=lambda ev: ev + "\n" * (4 << 20)), member,
                          file_size=10)
    one_line_exit_2(*compare(run, liar), f"member {member} is damaged")


def test_a_corrupted_member_is_one_line(compare, run, tmp_path):
    """A torn deflate stream raised zlib.error through a traceback."""
    member = f"top/logs/{run.name}/events.jsonl"
    good = bundle(tmp_path / "good.zip", run)
    with zipfile.ZipFile(good) as zf:
        start = zf.getinfo(member).header_offset
    data = bytearray(good.read_bytes())
    body = start + 30 + struct.unpack_from("<H", data, start + 26)[0] + struct.unpack_from("<H", data, start + 28)[0]
    for i in range(body + 10, body + 60):
        data[i] ^= 0x5A
    bad = tmp_path / "bad.zip"
    bad.write_bytes(bytes(data))
    one_line_exit_2(*compare(run, bad), f"member {member} is damaged: Error -3 while decompressing data")


def test_a_member_declared_past_its_cap_is_refused_before_a_byte_is_inflated(compare, run, tmp_path, monkeypatch):
    """A 3 GiB events.jsonl, as the header of a 3.4 MB bundle says, at a ratio a real bundle has: refused on the
    declared size, naming the member and the cap, before zipfile is asked for a byte of it."""
    sent = _patched_entry(bundle(tmp_path / "sent.zip", run), f"top/logs/{run.name}/events.jsonl",
                          file_size=3 << 30, compress_size=(3 << 30) // 20)

    opened = []
    real_open = zipfile.ZipFile.open

    def watched(self, member, *args, **kwargs):
        opened.append(getattr(member, "filename", member))
        return real_open(self, member, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", watched)
    code, out, err = compare(run, sent)
    assert not [name for name in opened if name.endswith("events.jsonl")]
    one_line_exit_2(code, out, err, f"member top/logs/{run.name}/events.jsonl inflates to 3,221,225,472 bytes, over "
                                    "the cap of 536,870,912 bytes on a run's events.jsonl")


def test_special_files_are_refused_without_being_read(run, tmp_path):
    """/dev/zero was read until the kernel killed compare, and a FIFO blocked open() for ever: each is now refused
    by its type, unopened. The child is bounded, so a regression fails here instead of eating the machine."""
    done = cardbench_compare(run, "/dev/zero")
    one_line_exit_2(done.returncode, done.stdout, done.stderr,
                    "cardbench compare: /dev/zero is a device, not a report bundle (.zip) or a run directory")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = cardbench_compare(run, fifo)
    one_line_exit_2(done.returncode, done.stdout, done.stderr,
                    f"cardbench compare: {fifo} is a FIFO, not a report bundle (.zip) or a run directory")


@pytest.mark.parametrize("price", ["-5", "1e-300", "1e300", "nan", "inf", "0"])
def test_a_price_option_is_held_to_a_bundle_s_rule(compare, run, tmp_path, price):
    """--price A=1e300 overflowed the cost arithmetic (OverflowError); -5 and nan were refused in other words than a
    bundle's price: every number now meets the one rule, in the same words."""
    sent = bundle(tmp_path / "sent.zip", run)
    one_line_exit_2(*compare(run, sent, "--price", f"A={price}"),
                    f"cardbench compare: --price A {float(price)!r} is not a price per hour between 0.000001 and")


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
    ({"runs": "RUN", "cost": {"price_per_hour": float("nan"), "currency": "CNY"}}, None, "the bundle's price nan is not"),
    ({"runs": "RUN", "cost": {"price_per_hour": 6.5, "currency": "C" * 100_000}}, None, "is not a currency"),
    ({"runs": "RUN", "cost": {"price_per_hour": 6.5, "currency": "\x1b]52;c;ZWNobyBoaQ==\x07"}}, None,
     "the bundle's currency: currency '\\x1b]52;c;ZWNobyBoaQ==\\x07' is not a currency"),
])
def test_a_bundle_out_of_shape_or_range_is_one_line_and_exit_2(compare, run, tmp_path, summary, events, said):
    if isinstance(summary, dict) and summary.get("runs") == "RUN":
        summary["runs"] = [{"run_id": run.name}]
    odd = bundle(tmp_path / "odd.zip", run, summary=summary, events=events)
    code, out, err = compare(run, odd)
    if said:
        one_line_exit_2(code, out, err, said)
        assert len(err) < 500 and "\x1b" not in err and "\x07" not in err
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
        assert "ZWNobyBoaQ" not in text and "pwned" not in text   # the whole sequence goes, not just its ESC
    line = next(x for x in out.splitlines() if x.startswith("| B "))
    assert "box\\|" in line and "next" in line   # the host's | and newline do not break its table row
