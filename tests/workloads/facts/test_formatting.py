"""workloads.facts.formatting: one way to print N/A, numbers, bytes, durations, rates, UTC times and device labels."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paths import REPO
from workloads.facts.formatting import (device_label, device_tag, fixed, format_bytes, format_duration, format_number,
                                       live_rate, percent, rate, reading, utc, utc_clock, utc_iso)
from workloads.facts.missing import NA, is_finite

MISSING = [None, float("nan"), float("inf"), float("-inf")]
T = 1_796_245_475.0  # 2026-12-02 21:04:35 UTC


@pytest.mark.parametrize("value", MISSING)
def test_missing_is_na_everywhere(value):
    for show in (format_number, fixed, rate, live_rate, percent, format_bytes, format_duration, reading, utc, utc_iso,
                 utc_clock):
        assert show(value) == NA, show
    assert rate(value, "tokens/s") == live_rate(value, "tokens/s") == rate(value, "B/s") == reading(value, "MHz") == NA
    assert not is_finite(value)


def test_not_a_number_is_na_where_a_number_belongs():
    for value in ("12", True, [1]):
        assert fixed(value) == percent(value) == format_bytes(value) == format_duration(value) == NA
        assert rate(value, "x/s") == NA
        assert live_rate(value, "x/s") == NA
        assert utc(value) == NA
    assert is_finite(0) and is_finite(-1.5) and is_finite(10**400) and not is_finite(False)


def test_number_significant_digits_and_separators():
    assert format_number(40.5) == "40.5" and format_number(0.012) == "0.012" and format_number(3.14159) == "3.142"
    assert format_number(6.0) == "6" and format_number(999.4) == "999.4" and format_number(29.84, 3) == "29.8"
    # whole numbers and anything from 1,000 up: separators, never an exponent
    assert format_number(2470) == "2,470" and format_number(2470.0) == "2,470" and format_number(1281167) == "1,281,167"
    assert format_number(1234.5) == "1,234" and format_number(12345.6) == "12,346"
    assert format_number(-12345.6) == "-12,346"
    assert format_number(5) == "5" and format_number(0) == "0"
    # text and bools as they are: a metric can be either
    assert format_number("bf16") == "bf16" and format_number(True) == "True"


def test_a_rate_as_a_result_reads_like_any_number():
    assert rate(950.0, "images/s") == "950 images/s" and rate(40.5, "tokens/s") == "40.5 tokens/s"
    assert rate(1234.56, "images/s") == "1,235 images/s" and rate(0.0123, "tokens/s") == "0.0123 tokens/s"
    assert rate(12 * 2**20, "B/s") == "12 MiB/s" and rate(0, "B/s") == "0 B/s"


def test_figures_watched_live_keep_their_decimals():
    assert fixed(1240.0) == "1,240.0" and fixed(2.76, 4) == "2.7600"
    assert live_rate(1240.0, "tokens/s") == "1,240.0 tokens/s" and live_rate(9.0, "images/s") == "9.0 images/s"
    assert live_rate(950, "images/s") == "950.0 images/s" and live_rate(0.0, "images/s") == "0.0 images/s"
    assert live_rate(0.0123, "tokens/s") == "0.0123 tokens/s"  # a slow rate never reads 0.0
    assert live_rate(29.84) == "29.8"  # no unit: the line has it


def test_percent_of_a_fraction():
    assert percent(0.135) == "13.5 %" and percent(0) == "0.0 %" and percent(1.358) == "135.8 %"
    assert percent(0.5, 0) == "50 %"


def test_bytes_binary_units_as_nvidia_smi():
    assert format_bytes(0) == "0 B" and format_bytes(1023) == "1023 B" and format_bytes(1024) == "1 KiB"
    assert format_bytes(1024**2 - 1) == "1024 KiB"  # rounded, still KiB: the unit goes by the value, not its rounding
    assert format_bytes(512 * 2**20) == "512 MiB" and format_bytes(2**30) == "1.0 GiB"
    assert format_bytes(80 * 2**30) == "80.0 GiB" and format_bytes(1023 * 2**30) == "1023.0 GiB"
    assert format_bytes(2**40) == "1.0 TiB" and format_bytes(3 * 2**50) == "3.0 PiB"
    assert format_bytes(24.5 * 2**30) == "24.5 GiB" and format_bytes(1000 * 2**20) == "1000 MiB"
    assert format_bytes(5 * 2**60) == "5.0 EiB" and format_bytes(2000 * 2**60) == "2,000.0 EiB"


@pytest.mark.parametrize("seconds, text", [
    (0, "0 ms"), (0.0004, "0.4 ms"), (0.0082, "8.2 ms"), (0.0101, "10.1 ms"), (0.012, "12 ms"),
    (0.1234, "123 ms"), (0.9994, "999 ms"),
    (0.9995, "1 s"), (1, "1 s"), (1.25, "1.25 s"), (45.0, "45 s"), (119.4, "119 s"),   # below 2 min: seconds
    (119.5, "2 min 0 s"), (125, "2 min 5 s"), (3599.4, "59 min 59 s"),                  # below 1 h: min and s
    (3599.6, "1 h 0 min"), (3661, "1 h 1 min"), (86369, "23 h 59 min"),                 # below a day: h and min
    (86399, "1 d 0 h"), (3 * 86400 + 4 * 3600, "3 d 4 h"),
])
def test_duration_boundaries(seconds, text):
    assert format_duration(seconds) == text


def test_a_negative_duration_is_na():
    assert format_duration(-0.001) == NA


def test_utc_times_carry_their_zone():
    assert utc(T) == "2026-12-02 21:04:35 UTC" and utc(T, zone=False) == "2026-12-02 21:04:35"
    assert utc_iso(T) == "2026-12-02T21:04:35Z" and utc_clock(T) == "21:04:35"
    assert utc(0) == "1970-01-01 00:00:00 UTC" and utc(1e30) == NA


def test_utc_does_not_follow_the_local_zone():
    code = ("import time; time.tzset(); from workloads.facts.formatting import utc, utc_clock; "
            f"print(utc({T}), utc_clock({T}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"TZ": "Asia/Shanghai", "PATH": ""}, cwd=str(_root()))
    assert done.stdout.strip() == "2026-12-02 21:04:35 UTC 21:04:35"


def test_reading_as_the_device_pane_prints_it():
    assert reading(0.0, "%") == "0%" and reading(61.0, "C") == "61 C" and reading(3) == "3"
    assert reading(1980.0, "MHz") == "1980 MHz" and reading(1.5, digits=2) == "1.50"
    assert reading(()) == "none" and reading(("power cap", "hw slowdown")) == "power cap, hw slowdown"
    assert reading(True) == "yes" and reading("P0") == "P0"


def test_device_label_one_style():
    assert device_label(0, "NVIDIA H100 80GB HBM3") == "GPU0 NVIDIA H100 80GB HBM3"
    assert device_label(1, "NVIDIA H100 80GB HBM3", "NVIDIA") == "GPU1 NVIDIA H100 80GB HBM3"
    assert device_label(0, "BI-V150", "Iluvatar") == "GPU0 BI-V150 (Iluvatar)"
    assert device_label(None, "X") == "GPU? X" and device_label(2, None) == "GPU2 N/A"
    assert device_tag(3) == device_tag(3.0) == device_tag("3") == "GPU3" and device_tag(True) == "GPU?"


def test_the_module_loads_neither_textual_nor_torch():
    code = ("import sys, workloads.facts.formatting; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'torch')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(_root()))
    assert done.stdout.strip() == "[]"


def _root():

    return REPO
