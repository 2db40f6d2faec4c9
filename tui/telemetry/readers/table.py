"""Reading the boxed tables the vendor CLIs print (``| a | b |`` rows) and the figures in their cells.

The figures come with their unit in the text ("57895/ 65536", "44302MiB(32768MiB)", "48W / 350W", "39 C"):
these helpers take the number and the unit and say None for every way a tool writes "not available".
"""

from __future__ import annotations

import re

MIB = 1024 * 1024
_MISSING = {"", "-", "--", "na", "n/a", "[n/a]", "none", "null", "unknown", "not supported", "[not supported]",
            "err!", "not available"}
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
# unit -> bytes; the vendor tables' "MB" are binary (a 64 GiB HBM prints "65536 MB")
_BYTES = {"b": 1, "kb": 1024, "kib": 1024, "mb": MIB, "mib": MIB, "gb": 1024 * MIB, "gib": 1024 * MIB}


def cells(line: str) -> list[str]:
    """'| 0   910B | OK | 70.0  34 |' -> ['0   910B', 'OK', '70.0  34']: a boxed row's cells, stripped."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


def is_rule(line: str) -> bool:
    """A border line: '+====+----+', '|=====|', '-----' (nothing but box characters)."""
    text = line.strip()
    return bool(text) and not text.strip("+-=|: ")


def missing(text: str | None) -> bool:
    return text is None or text.strip().lower() in _MISSING


def number(text: str | None) -> float | None:
    """The first number in a cell ('70.0', '39 C', '0%', '105W'); None for N/A, '-', 'NA' and no number."""
    if missing(text):
        return None
    assert text is not None
    m = _NUMBER.search(text)
    return float(m.group(0)) if m else None


def integer(text: str | None) -> int | None:
    value = number(text)
    return int(value) if value is not None else None


def nbytes(value: float | None, unit: str = "MiB") -> int | None:
    """A figure in ``unit`` (MiB, MB, GiB, KB, B: binary, as these tools mean them) -> bytes."""
    if value is None:
        return None
    factor = _BYTES.get(unit.strip().lower())
    if factor is None:
        raise ValueError(f"unknown memory unit {unit!r}")
    return int(round(value * factor))


def used_total(text: str | None, unit: str = "MiB") -> tuple[int | None, int | None]:
    """'57895/ 65536', '810/65536 MiB', '672MiB / 131072MiB', '0 / 0' -> (used, total) bytes.

    A unit written beside a number wins over ``unit`` (the column's). Either side N/A is None."""
    if missing(text):
        return None, None
    assert text is not None
    left, sep, right = text.partition("/")
    if not sep:
        return None, None
    return _with_unit(left, unit), _with_unit(right, unit)


def _with_unit(text: str, default: str) -> int | None:
    m = re.search(r"([-+]?\d+(?:\.\d+)?)\s*([KMG]i?B|B)?\b", text.strip(), re.IGNORECASE)
    if m is None or missing(text):
        return None
    return nbytes(float(m.group(1)), m.group(2) or default)


def bus_id(text: str | None) -> str | None:
    """A PCI address as printed ('0000:C1:00.0', '00000000:18:00.0', '00:01:00.0') -> '0000:c1:00.0'; None if none."""
    from tui.telemetry.sample import normalize_bus_id

    if missing(text):
        return None
    assert text is not None
    m = re.search(r"(?:[0-9a-fA-F]{2,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]", text)
    if m is None:
        return None
    found = m.group(0)
    parts = found.split(":")
    if len(parts) == 3 and len(parts[0]) == 2:  # efsmi's '00:01:00.0': a 2-digit domain
        found = f"00{parts[0]}:{parts[1]}:{parts[2]}"
    return normalize_bus_id(found)
