"""Cambricon's ``cnmon``: the default boxed table, in its 5.x and its 4.20.x layouts.

Each card is two rows under two title rows, and the titles differ between releases, so every figure is found by its
column title, never by its position:

- 5.x: ``Card VF Name Firmware | Bus-Id | Util Ecc-Error`` over ``Fan Temp Pwr:Usage/Cap | Memory-Usage |
  SR-IOV Compute-Mode`` (5.10.31 says ``Mode Compute-Mode``); the driver version is in the title line;
- 4.20.x: ``... | Inited Driver | Util Ecc-Error`` over ``... | Memory-Usage | vMemory-Usage``: no bus id, the
  driver version in each card's row.

Built against real captures (tests/fixtures/cnmon/, each with its .source): 2x MLU370-X8 on v5.10.13, 8x MLU (model
redacted) on v5.10.31, 3x MLU370-X4 on v4.20.11. Every one says "No running processes found"; no capture with a
process row was found, so a process block with rows is read as unknown (None), not guessed.

``cnmon info -j`` is not read: it writes ``cnmon_info.json`` into its working folder rather than to stdout, a `Call`
returns stdout only, and no real ``cnmon_info.json`` was found to build a parser against.

``Util`` is the card's busy share (``cnmon info -u`` calls it "MLU Average", the mean over the card's cores): the same
kind of figure as a GPU's, so ``util_kind`` stays None. The table has no health column (Ecc-Error is a count).
"""

from __future__ import annotations

import re

from tui.telemetry.readers import Call, Reading, ReaderError
from tui.telemetry.readers.table import bus_id, cell_fields, cells, integer, is_rule, missing, parse_number, used_total
from tui.telemetry.sample import DeviceProcess, DeviceSample

EXE = "cnmon"

# the titles whose value may hold spaces ("106 W/ 250 W"); every other title holds one word
_WIDE = {"Name", "Pwr:Usage/Cap"}
_DRIVER = re.compile(r"\bDriver\s+v?(\d[\w.\-]*)")


def read(call: Call) -> Reading:
    """The default table (``cnmon`` with no argument); the cards it could read, and one line for what it could not."""
    done = call([])
    if done.problem and not done.stdout.strip():
        return [], [done.problem]
    devices, problem = _table(done.stdout)
    return devices, [f"{EXE}: {problem}"] if problem else []


def parse_table(text: str) -> list[DeviceSample]:
    """``cnmon``'s default output -> one DeviceSample per card; ReaderError on text that is not a whole table."""
    devices, problem = _table(text)
    if problem:
        raise ReaderError(problem)
    return devices


def _table(text: str) -> tuple[list[DeviceSample], str | None]:
    """The cards read, and why the rest could not be (None when the whole table was read)."""
    lines = text.splitlines()
    if not text.endswith("\n"):
        lines = lines[:-1]  # a last line without its newline may be cut mid-figure ("10" of "106 W"): not read
    if not any("CNMON" in line for line in lines[:10]):
        return [], "not cnmon's table (no 'CNMON v...' title)"
    start = next((i for i, line in enumerate(lines) if cells(line)[0].startswith("Card ") and "Name" in line), None)
    if start is None or start + 1 >= len(lines):
        return [], "no 'Card ... Firmware' title row: not a card table"
    titles = [cells(lines[start]), cells(lines[start + 1])]
    driver = next((m.group(1) for m in map(_DRIVER.search, lines[:start]) if m), None)
    rows, end = _card_rows(lines, start + 2)
    devices: list[DeviceSample] = []
    for first, second in zip(rows[::2], rows[1::2]):
        if len(first) != len(titles[0]) or len(second) != len(titles[1]) or integer(_first_word(first)) is None:
            return devices, f"a card row unlike its titles ({' | '.join(first)[:60]!r}): the rest not read"
        devices.append(_card(_fields(titles[0], first) | _fields(titles[1], second), driver))
    if len(rows) % 2:
        return devices, f"card {_first_word(rows[-1])} has one row of its two: output cut short"
    if not devices:
        return [], "a card table with no card rows"
    processes = _processes(lines[end:])
    return [d.replace(processes=processes) for d in devices], None


def _first_word(row: list[str]) -> str:
    return row[0].split()[0] if row and row[0].split() else "?"


def _card_rows(lines: list[str], begin: int) -> tuple[list[list[str]], int]:
    """The boxed rows after the title rows, up to the blank line (or 'Processes:') that ends the card table."""
    rows: list[list[str]] = []
    index = begin
    for index in range(begin, len(lines)):
        line = lines[index]
        if not line.strip() or "Processes:" in line:
            return rows, index
        if is_rule(line) or not line.lstrip().startswith("|"):
            continue
        rows.append(cells(line))
    return rows, len(lines)


def _fields(titles: list[str], values: list[str]) -> dict[str, str]:
    """Each title cell's words ('Temp Pwr:Usage/Cap') -> the words under them ('44C', '71W / 350W')."""
    out: dict[str, str] = {}
    for title, value in zip(titles, values):
        out.update(cell_fields(title.split(), value, _WIDE))
    return out


def _card(f: dict[str, str], driver: str | None) -> DeviceSample:
    used, total = used_total(f.get("Memory-Usage"))
    usage, _, cap = (f.get("Pwr:Usage/Cap") or "").partition("/")
    own_driver = f.get("Driver")  # 4.20.x: the driver version is a per-card sub-column
    if own_driver is not None and not missing(own_driver):
        driver = own_driver.lstrip("v")
    return DeviceSample(
        index=integer(f.get("Card")),
        name=None if missing(f.get("Name")) else f.get("Name"),
        bus_id=bus_id(f.get("Bus-Id")),
        driver_version=driver,
        util_gpu_pct=parse_number(f.get("Util")),
        mem_used_bytes=used,
        mem_total_bytes=total,
        temperature_c=parse_number(f.get("Temp")),
        power_w=parse_number(usage),
        power_limit_w=parse_number(cap),
        fan_pct=parse_number(f.get("Fan")),
    )


def _processes(lines: list[str]) -> tuple[DeviceProcess, ...] | None:
    """() where the block says no process runs; None where there is no block or it lists rows (no real sample)."""
    if not any("Processes:" in line for line in lines):
        return None
    body = [cells(line)[0] for line in lines if line.strip().startswith("|") and not is_rule(line)]
    if any(row.startswith("No running processes found") for row in body):
        return ()
    return None
