"""MetaX's ``mx-smi``: the default boxed table every tick, and ``mx-smi -L`` for a card's state where the table has none.

Each card is two boxed rows under two title rows, and the titles differ between releases, so every figure is found by
its column title, never by its position:

- 2.1.6: ``GPU NAME | Bus-id | GPU-Util`` over ``Temp Power | Memory-Usage |`` (no power cap, no state column);
- 2.1.12: ``Temp Pwr:Usage/Cap`` ("97W / NA" in a container: the cap N/A), the third column still empty;
- 2.2.4: a ``GPU-State`` column ("Available");
- 2.2.6 and later: ``GPU NAME Persistence-M | Bus-id | GPU-Util sGPU-M`` over ``Temp Pwr:Usage/Cap Perf |
  Memory-Usage | GPU-State``: the performance state ("P9") is read into ``pstate``.

The process block lists ``GPU PID Process Name GPU Memory Usage(MiB)`` rows, or "no process found" (``()``).

Where the build prints no ``GPU-State``, the state comes from ``mx-smi -L`` ("GPU#0  MXC500  0000:08:00.0  Available
(UUID: GPU-...)", or "Not Available(reason)"), asked at most every `LIST_EVERY_S` seconds: a card's state changes
seldom, and a second process every tick would double the tool's cost. The answer is kept in a `ListCache`, a small
object: the module-level `read` keeps one (`_CACHE`) across ticks, a test passes its own.

Moffett AI's SPU tool is installed as ``mx-smi`` too (by its SOLA Toolkit, banner "MOFFETT-SMI"; Moffett's PCI vendor
id is 0x1f36, MetaX's 0x9999): output without MetaX's banner ("MetaX System Management Interface" or a "| MX-SMI x"
title) is refused, never read as MetaX's.

Built against real captures (tests/fixtures/mx-smi/, each with its .source): 8x MXC550 on 2.1.6, 4x MXC500 on 2.1.6
busy with processes, 8x C500 on 2.1.12 with processes, 1x C550 on 2.1.12 in a container (cap NA), 1x C500 and 8x
C550 on 2.2.4 (GPU-State), 1x C500 on 2.2.6 (Persistence-M / Perf / sGPU-M, one process), ``-L`` on 2.2.9, and an
excerpt of Moffett's mx-smi 2.3.0 (refused).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from tui.telemetry.readers import Call, Reading, ReaderError
from tui.telemetry.readers.table import (bus_id, cell_fields, cells, integer, is_rule, missing, overfull, parse_number,
                                         to_bytes, used_total)
from tui.telemetry.sample import DeviceProcess, DeviceSample

EXE = "mx-smi"
LIST_ARGS = ["-L"]
LIST_EVERY_S = 30.0   # how long an `mx-smi -L` answer (or its failure) stands for the cards' states

# the titles whose value may hold spaces ("MetaX C500", "48W / 350W", "Not Available(reason)"); the others hold one word
_WIDE = {"NAME", "Pwr:Usage/Cap", "GPU-State"}
_DRIVER = re.compile(r"Kernel Mode Driver Version:\s*(\S+)")
_MACA = re.compile(r"MACA Version:\s*(\S+)")
_PROCESS = re.compile(r"^(\d+)\s+(\d+)\s+(?:(.*?)\s+)?(\d+|N/A)$")
_LIST_ROW = re.compile(r"^GPU#(\d+)\s+(.*?)\s+((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.*?)"
                       r"\s*(?:\(UUID:\s*([^)]*)\))?\s*$")


@dataclass
class ListCache:
    """The last ``mx-smi -L`` answer: when it was asked, each card's state by bus id and by index, or why it failed."""

    asked_at: float | None = None
    states: dict[str, str] = field(default_factory=dict)
    uuids: dict[str, str] = field(default_factory=dict)
    problem: str | None = None

    def stale(self, now: float) -> bool:
        return self.asked_at is None or now - self.asked_at >= LIST_EVERY_S


_CACHE = ListCache()


def read(call: Call, cache: ListCache | None = None, now: float | None = None) -> Reading:
    """The default table; each card's state from its GPU-State column, else from ``mx-smi -L`` (cached in ``cache``)."""
    done = call([])
    if done.problem and not done.stdout.strip():
        return [], [done.problem]
    devices, problem = _table(done.stdout)
    problems = [f"{EXE}: {problem}"] if problem else []
    if devices and any(d.health is None for d in devices):
        cache = _CACHE if cache is None else cache
        devices, list_problem = _with_states(devices, call, cache, time.monotonic() if now is None else now)
        problems += [list_problem] if list_problem else []
    return devices, problems + [line for line in (overfull(EXE, d) for d in devices) if line]


def parse_table(text: str) -> list[DeviceSample]:
    """``mx-smi``'s default output -> one DeviceSample per card; ReaderError on text that is not a whole MetaX table."""
    devices, problem = _table(text)
    if problem:
        raise ReaderError(problem)
    return devices


def parse_list(text: str) -> list[DeviceSample]:
    """``mx-smi -L`` -> one DeviceSample per ``GPU#n`` line (index, name, bus id, state, uuid)."""
    _refuse_moffett(text)
    devices = []
    for line in text.splitlines():
        m = _LIST_ROW.match(line.strip())
        if m is None:
            continue
        state = m.group(4).strip()
        devices.append(DeviceSample(index=int(m.group(1)), name=m.group(2) or None, bus_id=bus_id(m.group(3)),
                                    health=state or None, uuid=(m.group(5) or "").strip() or None))
    if not devices:
        raise ReaderError("no 'GPU#n <name> <bus id> <state>' line: not mx-smi -L")
    return devices


_MOFFETT = "mx-smi here is not MetaX's: Moffett's SPU tool of the same name (MOFFETT-SMI banner)"


def _refuse_moffett(text: str) -> None:
    # Moffett's tool shares the name; its banner is "MOFFETT-SMI x.y.z" (docs.moffettai.com, mx-smi user guide).
    # Only its banner counts: a MetaX card's process may well be called "moffett-bench".
    if "MOFFETT-SMI" in text:
        raise ReaderError(_MOFFETT)


def _is_metax(lines: list[str]) -> bool:
    return any("MetaX System Management Interface" in line or line.startswith("| MX-SMI ") for line in lines)


def _table(text: str) -> tuple[list[DeviceSample], str | None]:
    """The cards read, and why the rest could not be (None when the whole table was read)."""
    lines = text.splitlines()
    if not text.endswith("\n"):
        lines = lines[:-1]  # a last line without its newline may be cut mid-figure ("4" of "48W"): not read
    if not _is_metax(lines):
        if "MOFFETT-SMI" in text:
            return [], _MOFFETT
        return [], "mx-smi here is not MetaX's: no 'MetaX System Management Interface' / 'MX-SMI' banner"
    start = next((i for i, line in enumerate(lines) if cells(line)[0].startswith("GPU ") and "NAME" in line), None)
    if start is None or start + 1 >= len(lines):
        return [], "no 'GPU NAME | Bus-id | GPU-Util' title row: not a card table"
    titles = [cells(lines[start]), cells(lines[start + 1])]
    head = "\n".join(lines[:start])
    versions = (_version(_DRIVER, head), _version(_MACA, head))
    rows, end = _card_rows(lines, start + 2)
    devices: list[DeviceSample] = []
    for first, second in zip(rows[::2], rows[1::2]):
        if len(first) != len(titles[0]) or len(second) != len(titles[1]) or integer(_first_word(first)) is None:
            return devices, f"a card row unlike its titles ({' | '.join(first)[:60]!r}): the rest not read"
        devices.append(_card(_fields(titles[0], first) | _fields(titles[1], second), *versions))
    if len(rows) % 2:
        return devices, f"card {_first_word(rows[-1])} has one row of its two: output cut short"
    if not devices:
        return [], "a card table with no card rows"
    processes = _processes(lines[end:])
    if processes is None:
        return [d.replace(processes=None) for d in devices], None
    return [d.replace(processes=tuple(p for i, p in processes if i == d.index)) for d in devices], None


def _version(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.search(text)
    return None if m is None or missing(m.group(1)) or m.group(1).lower() == "unknown" else m.group(1)


def _first_word(row: list[str]) -> str:
    return row[0].split()[0] if row and row[0].split() else "?"


def _card_rows(lines: list[str], begin: int) -> tuple[list[list[str]], int]:
    """The boxed rows after the title rows, up to the blank line (or 'Process:' box) that ends the card table."""
    rows: list[list[str]] = []
    for index in range(begin, len(lines)):
        line = lines[index]
        if not line.strip() or "Process:" in line:
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


def _card(f: dict[str, str], driver: str | None, maca: str | None) -> DeviceSample:
    used, total = used_total(f.get("Memory-Usage"))
    usage, _, cap = (f.get("Pwr:Usage/Cap") or f.get("Power") or "").partition("/")
    state = f.get("GPU-State")
    return DeviceSample(
        index=integer(f.get("GPU")),
        name=None if missing(f.get("NAME")) else f.get("NAME"),
        bus_id=bus_id(f.get("Bus-id")),
        driver_version=driver,
        runtime_version=maca,
        util_gpu_pct=parse_number(f.get("GPU-Util")),
        mem_used_bytes=used,
        mem_total_bytes=total,
        temperature_c=parse_number(f.get("Temp")),
        power_w=parse_number(usage),
        power_limit_w=parse_number(cap),
        pstate=None if missing(f.get("Perf")) else f.get("Perf"),
        health=None if missing(state) else state,
    )


def _processes(lines: list[str]) -> list[tuple[int, DeviceProcess]] | None:
    """(card index, process) rows; [] where the box says "no process found"; None where there is no whole box or a
    row this reader cannot read (never guessed)."""
    begin = next((i for i, line in enumerate(lines) if "Process:" in line), None)
    if begin is None:
        return None
    body_start = next((i for i in range(begin, len(lines)) if lines[i].strip().startswith("|=")), None)
    end = next((i for i in range(begin, len(lines)) if lines[i].strip().startswith("+-")), None)
    if body_start is None or end is None or end < body_start:
        return None  # the box is not closed: output cut short
    out: list[tuple[int, DeviceProcess]] = []
    for line in lines[body_start + 1:end]:
        text = cells(line)[0]
        if text.lower() == "no process found":
            return []
        m = _PROCESS.match(text)
        if m is None:
            return None
        used = None if m.group(4) == "N/A" else to_bytes(float(m.group(4)), "MiB")
        out.append((int(m.group(1)), DeviceProcess(int(m.group(2)), m.group(3) or None, used)))
    return out


def _with_states(devices: list[DeviceSample], call: Call, cache: ListCache, now: float) -> tuple[list[DeviceSample],
                                                                                                    str | None]:
    """The cards with no GPU-State given theirs from ``mx-smi -L``, asked again only when the cache is stale."""
    if cache.stale(now):
        cache.asked_at, cache.states, cache.uuids, cache.problem = now, {}, {}, None
        done = call(LIST_ARGS)
        try:
            if done.returncode != 0 or not done.stdout.strip():
                raise ReaderError(done.problem or "no answer")
            for d in parse_list(done.stdout):
                for key in (d.bus_id, f"index:{d.index}"):
                    if key and d.health:
                        cache.states[key] = d.health
                    if key and d.uuid:
                        cache.uuids[key] = d.uuid
        except ReaderError as exc:
            cache.problem = f"{EXE} -L: card states not read ({exc})"
    return [_stated(d, cache) for d in devices], cache.problem


def _stated(d: DeviceSample, cache: ListCache) -> DeviceSample:
    keys = [d.bus_id] if d.bus_id else [f"index:{d.index}"]  # the index only where the table has no bus id
    state = d.health or next((cache.states[k] for k in keys if k in cache.states), None)
    uuid = d.uuid or next((cache.uuids[k] for k in keys if k in cache.uuids), None)
    return d.replace(health=state, uuid=uuid)
