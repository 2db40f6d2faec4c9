"""One way to print what cardbench reads and measures: numbers, bytes, durations, rates, times, devices.

The workloads' result lines and run logs, the workbench panes, `cardbench devices`, the doctor, the headless
export and the report bundle all print through these, so a value reads the same on the screen, in a terminal
line and in report.md. UI-free and torch-free: importing it loads neither Textual nor torch.

- Missing is a value: None, NaN, an infinity, or a non-number where a number belongs prints
  ``NA`` (workloads.facts.missing), never ``0`` and never ``nan``.
- ``format_number`` and ``rate`` print results (four significant digits, thousands separators from
  1,000, never an exponent from 1,000 up: "1,235 images/s"); ``fixed`` and ``live_rate`` print
  figures watched while they change, which keep their decimals so they do not jump about
  ("1,240.0 tokens/s", loss "2.7600"); ``reading`` is a telemetry reading with its unit, as the
  device pane prints it ("1980 MHz", "61%").
- Times are UTC with the zone written: ``utc(t)`` for people, ``utc_iso(t)`` for programs.
- A device is ``GPU<index> <name>``: the management index (nvidia-smi's, NVML's, the vendor
  CLI's), which is not torch's ``cuda:N`` once CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reorder.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

from workloads.catalogue import LANGS, say
from workloads.facts.missing import NA, is_finite


def format_number(value: Any, digits: int = 4) -> str:
    """``digits`` significant digits ('40.5', '0.012'); from 1,000 up whole, with separators ('12,346'),
    and whole numbers too ('2,470'). None, NaN, inf -> N/A; text or a bool as it is."""
    if value is None:
        return NA
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return NA
    if abs(value) < 1000:
        return f"{value:.{digits}g}"
    return f"{value:,.{max(0, digits - len(str(int(abs(value)))))}f}"


def fixed(value: Any, decimals: int = 1) -> str:
    """``decimals`` decimals with thousands separators ('1,240.0', loss '2.7600'); N/A when missing."""
    return f"{value:,.{decimals}f}" if is_finite(value) else NA


def rate(value: Any, unit: str = "") -> str:
    """A measured rate as a result (the report, a run's result line): ``format_number``'s four significant digits and
    the unit ('950 images/s', '1,235 tokens/s'); unit 'B/s' in binary units ('12 MiB/s'). N/A alone when missing."""
    if not is_finite(value):
        return NA
    if unit == "B/s":
        return f"{format_bytes(value)}/s"
    return f"{format_number(value)} {unit}".rstrip()


def live_rate(value: Any, unit: str = "") -> str:
    """A rate watched while it changes (the launcher, the export's progress): one decimal with separators, so
    the figure keeps its width ('1,240.0 tokens/s'); three significant digits below 1, so a slow one never
    reads 0.0 ('0.0123 tokens/s'). N/A alone when missing."""
    if not is_finite(value):
        return NA
    text = format_number(value, 3) if 0 < abs(value) < 1 else fixed(value, 1)
    return f"{text} {unit}".rstrip()


def percent(fraction: Any, digits: int = 1) -> str:
    """A fraction as a percentage: 0.135 -> '13.5 %'; N/A when missing."""
    return f"{100 * fraction:.{digits}f} %" if is_finite(fraction) else NA


def format_bytes(value: Any) -> str:
    """Bytes in binary units as nvidia-smi prints memory: '512 MiB', '1000 MiB', '80.0 GiB' (B, KiB, MiB whole;
    GiB and up one decimal, with separators past EiB's 1,000); N/A when missing. The one byte formatter: a
    memory estimate, a buffer size, a reading and a report print 1000 MiB the same way."""
    if not is_finite(value):
        return NA
    size = float(value)
    for unit in ("B", "KiB", "MiB"):
        if abs(size) < 1024:
            return f"{size:.0f} {unit}"
        size /= 1024
    for unit in ("GiB", "TiB", "PiB"):
        if abs(size) < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} EiB"


# a duration's units in each language the report speaks (the catalogue's report.unit.*; Chinese as zh-CN system
# tools write them)
_DURATION_UNITS = {lang: tuple(say(f"report.unit.{unit}", lang) for unit in ("ms", "s", "min", "h", "d"))
                   for lang in LANGS}


def format_duration(seconds: Any, lang: str = "en") -> str:
    """'8.2 ms', '12 ms', '1.84 s', '45 s', '2 min 5 s', '1 h 2 min', '3 d 4 h': three significant digits in
    milliseconds below 1 s and in seconds below 2 min, then minutes and seconds below 1 h, hours and minutes
    below a day, days and hours from there. Missing or negative -> N/A. ``lang`` "zh": the same figures in
    Chinese units (report.unit.* of the catalogue)."""
    if not is_finite(seconds) or seconds < 0:
        return NA
    ms, s, mins, h, d = _DURATION_UNITS.get(lang, _DURATION_UNITS["en"])
    if seconds < 0.9995:  # what would round to 1000 ms reads 1 s
        return f"{format_number(seconds * 1000, 3)} {ms}"
    if seconds < 119.5:
        return f"{format_number(seconds, 3)} {s}"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} {mins} {whole % 60} {s}"
    minutes = round(seconds / 60)
    if minutes < 24 * 60:
        return f"{minutes // 60} {h} {minutes % 60} {mins}"
    hours = round(seconds / 3600)
    return f"{hours // 24} {d} {hours % 24} {h}"


def _gmtime(t: Any) -> time.struct_time | None:
    if not is_finite(t):
        return None
    try:
        return time.gmtime(t)
    except (OverflowError, OSError, ValueError):
        return None


def utc(t: Any, *, zone: bool = True) -> str:
    """Unix time -> '2026-12-02 21:04:35 UTC' (``zone=False``: without ' UTC', for a sentence that says it)."""
    stamp = _gmtime(t)
    if stamp is None:
        return NA
    text = time.strftime("%Y-%m-%d %H:%M:%S", stamp)
    return f"{text} UTC" if zone else text


def utc_iso(t: Any) -> str:
    """Unix time -> '2026-12-02T21:04:35Z' (ISO 8601), where a program reads it."""
    stamp = _gmtime(t)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", stamp) if stamp is not None else NA


def utc_clock(t: Any) -> str:
    """Unix time -> '21:04:35', UTC: the log pane's line stamps (run.log's full ones are ``utc``)."""
    stamp = _gmtime(t)
    return time.strftime("%H:%M:%S", stamp) if stamp is not None else NA


def reading(value: Any, unit: str = "", digits: int = 0) -> str:
    """A telemetry reading as the device pane prints it: ``digits`` decimals (an int as it is), no separators,
    '%' stuck to the number ('61%') and other units after a space ('1980 MHz'); a bool yes/no, a list joined
    ('none' when empty). None, NaN, inf -> N/A."""
    if value is None or isinstance(value, float) and not math.isfinite(value):
        return NA
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        text = f"{value:.{digits}f}" if isinstance(value, float) or digits else str(value)
    elif isinstance(value, (tuple, list)):
        text = ", ".join(str(v) for v in value) if value else "none"
    else:
        text = str(value)
    return f"{text} {unit}".rstrip() if unit and unit != "%" else f"{text}{unit}"


def _index(value: Any) -> int | None:
    if is_finite(value) and float(value).is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def device_tag(index: Any) -> str:
    """'GPU0': the device's management index; 'GPU?' when it is not known."""
    found = _index(index)
    return f"GPU{found}" if found is not None else "GPU?"


def device_label(index: Any, name: Any, maker: Any = None) -> str:
    """'GPU0 NVIDIA H100 80GB HBM3'; the maker in brackets when the name does not say it
    ('GPU1 BI-V150 (Iluvatar)'); 'GPU0 N/A' when the name is missing."""
    label = f"{device_tag(index)} {name or NA}"
    if maker and str(maker).lower() not in str(name or "").lower():
        label += f" ({maker})"
    return label


def code(text: str) -> str:
    """``text`` as a markdown code span, whatever backticks it holds: fenced by one more backtick than its
    longest run, padded with a space where it starts or ends with one (CommonMark's rule)."""
    text = " ".join(str(text).split("\n"))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
