"""Strings from outside reach a terminal without the sequences a terminal obeys."""
import pytest

import os

from workloads.safe_text import file_name, one_line, printable

HOSTILE = [
    ("retitle", "host\x1b]0;pwned\x07name", "hostname"),
    ("clipboard", "a\x1b]52;c;ZWNobyBoaQ==\x07b", "ab"),
    ("clipboard ST", "a\x1b]52;c;ZWNobw==\x1b\\b", "ab"),
    ("clear", "x\x1b[2J\x1b[Hy", "xy"),
    ("C1 CSI", "u\x9b31mv", "uv"),
    ("reset", "\x1bcreset", "reset"),
    ("bidi override", "r\u202eevil", "revil"),
    ("unterminated OSC", "cut\x1b]0;never ends", "cut"),
    ("DCS", "p\x1bPq#0;2;0;0;0\x1b\\q", "pq"),
    ("bell and backspace", "b\x07e\x08l", "bel"),
]


@pytest.mark.parametrize("name,raw,want", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_sequences_go_whole(name, raw, want):
    assert printable(raw) == want
    assert one_line(raw) == want
    assert "\x1b" not in printable(raw) and "\x9b" not in printable(raw)


def test_text_people_write_stays():
    assert printable("ok ünïcode 中文 42 %\ttab\nnext") == "ok ünïcode 中文 42 %\ttab\nnext"
    assert printable("a\r\nb\rc") == "a\nb\nc"


def test_one_line_and_limit():
    assert one_line("first\nsecond\r\nthird\tx") == "first second third x"
    assert one_line("x" * 100, limit=10) == "x" * 9 + "…"
    assert len(printable("y" * 100_000, limit=200)) == 200


def test_a_file_name_that_is_not_utf8_prints():
    name = os.fsdecode(b"run-\xff\x1b]0;x\x07.log")
    shown = file_name(name)
    assert shown == "run-\\xff.log"
    shown.encode("utf-8")   # no surrogate left to fail a print
