"""Reading the boxed tables the vendor CLIs print (``| a | b |`` rows) and the figures in their cells.

The figures come with their unit in the text ("57895/ 65536", "44302MiB(32768MiB)", "48W / 350W", "39 C"):
these helpers take the number and the unit and say None for every way a tool writes "not available".
"""

from __future__ import annotations

import re

from tui.telemetry.sample import DeviceSample

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


def parse_number(text: str | None) -> float | None:
    """The first number in a cell ('70.0', '39 C', '0%', '105W'); None for N/A, '-', 'NA' and no number."""
    if missing(text):
        return None
    assert text is not None
    m = _NUMBER.search(text)
    return float(m.group(0)) if m else None


def integer(text: str | None) -> int | None:
    value = parse_number(text)
    return int(value) if value is not None else None


def to_bytes(value: float | None, unit: str = "MiB") -> int | None:
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
    return to_bytes(float(m.group(1)), m.group(2) or default)


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


def whole_lines(text: str) -> list[str]:
    """The lines of ``text``; a last line without its newline may be cut mid-figure ("8" of "88W"), so it is dropped."""
    lines = text.splitlines()
    return lines if text.endswith("\n") else lines[:-1]


# the titles whose value may hold spaces ("P800 OAM", "88W / 400W"); every other title holds one word
_WIDE = {"Name", "Pwr:Usage/Cap"}


def card_table(lines: list[str], first: str) -> tuple[list[list[str]], list[list[list[str]]], int, str | None]:
    """The title rows (cells), each card's rows (cells), the index after the card table, and what could not be read.

    The titles run from the row whose first cell starts with ``first`` ("XPU  Name", "AIP  Name") to the ``|===|``
    rule; a card is as many rows as there are title rows, and cards are parted by ``+---+`` rules. The table ends at a
    blank line or a ``Processes:`` row. A card with fewer rows (output cut short) or unlike its titles ends the reading.
    """
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("|")
                  and cells(line)[0].startswith(first + " ")), None)
    rule = next((i for i in range(start or 0, len(lines)) if is_rule(lines[i]) and "=" in lines[i]), None)
    if start is None or rule is None:
        return [], [], len(lines), f"no '{first}  Name ...' title rows over a '|===|' rule: not a card table"
    titles = [cells(line) for line in lines[start:rule]]
    cards: list[list[list[str]]] = [[]]
    end = len(lines)
    for index in range(rule + 1, len(lines)):
        line = lines[index]
        if not line.strip() or "Processes:" in line:
            end = index
            break
        if is_rule(line):
            cards.append([])          # the rule under a card: the next rows are the next card's
        elif line.lstrip().startswith("|"):
            cards[-1].append(cells(line))
    return _whole_cards(titles, [rows for rows in cards if rows], end)


def _whole_cards(titles: list[list[str]], cards: list[list[list[str]]],
                 end: int) -> tuple[list[list[str]], list[list[list[str]]], int, str | None]:
    """The cards up to the first that is cut short or unlike its titles, and a line saying so."""
    for number_read, rows in enumerate(cards):
        first = rows[0][0].split()[0] if rows[0] and rows[0][0].split() else "?"
        if len(rows) < len(titles):
            why = f"card {first} has {len(rows)} row(s) of its {len(titles)}: output cut short"
            return titles, cards[:number_read], end, why
        if len(rows) > len(titles) or any(len(r) != len(t) for r, t in zip(rows, titles)) or integer(first) is None:
            return titles, cards[:number_read], end, f"a card row unlike its titles ({' | '.join(rows[0])[:60]!r})"
    return titles, cards, end, None


def fields(titles: list[list[str]], rows: list[list[str]]) -> dict[str, str]:
    """Each title ('Fan  Temp  Perf  Pwr:Usage/Cap', titles parted by 2+ spaces) -> the words under it ('N/A', '37C',
    'N/A', '88W / 400W'), cell by cell (`cell_fields`)."""
    out: dict[str, str] = {}
    for title_row, value_row in zip(titles, rows):
        for title, value in zip(title_row, value_row):
            out.update(cell_fields([n for n in re.split(r"\s{2,}", title.strip()) if n], value))
    return out


def cell_fields(names: list[str], value: str, wide: frozenset[str] | set[str] = frozenset(_WIDE)) -> dict[str, str]:
    """One cell's titles (``names``) -> the words under them. A title in ``wide`` ("Name", "Pwr:Usage/Cap") takes the
    words the others leave ("P800 OAM", "88W / 400W"); a cell with fewer words than titles gives none of them (which
    is which cannot be told), so all stay N/A."""
    words = value.split()
    if len(names) <= 1:
        return {names[0]: value} if names else {}
    if len(words) < len(names):
        return {}
    at = next((i for i, n in enumerate(names) if n in wide), len(names) - 1)
    after = len(names) - at - 1
    out = {names[i]: words[i] for i in range(at)}
    out[names[at]] = " ".join(words[at:len(words) - after])
    out.update((names[at + 1 + i], words[len(words) - after + i]) for i in range(after))
    return out


def overfull(exe: str, d: DeviceSample, why: str = "kept as read") -> str | None:
    """One line for a card whose memory used is above its total (kept as read, never clipped), with ``why``."""
    if not d.over_total:
        return None
    return (f"{exe}: card {d.index} ({d.name}) reports {(d.mem_used_bytes or 0) // MIB} MiB used of "
            f"{(d.mem_total_bytes or 0) // MIB} MiB: memory used above total, {why}")
