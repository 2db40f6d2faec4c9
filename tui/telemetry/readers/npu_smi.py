"""Huawei Ascend's ``npu-smi info``: the boxed table every release prints (there is no JSON mode).

Each chip is a block of two rows under two title rows, and every figure is found by its column title, never by its
position (the layouts differ):

- 910 / 910B / 910B2C / 910B3 / 910B4 (22.x-26.x): ``NPU Name | Health | Power(W) Temp(C) Hugepages-Usage(page)``
  over ``Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB)``;
- A3 (``Ascend910``, two dies a card): ``Chip Phy-ID`` in the second title row, one block per die, the die's power
  printed on the first die only (``-`` on the second);
- 310 / 310P / 310B: ``Chip Device``, no HBM column, several chips under one NPU id (Atlas 300, 300I Duo), power
  ``NA`` on the 310P; 20.x prints no Hugepages column;
- 1.9.x (old 910A): no Hugepages column, and the second row's figures sit at other offsets than their titles.

A cell holding several figures is read as tokens, a ``used / total`` pair being one token whatever its spacing
(``57895/ 65536`` at five digits, ``0    / 32768``), and the tokens are matched to the title's words.

One DeviceSample per chip. ``index`` is the chip's place in the table, 0 up: the logic id that torch_npu's ``npu:N``
and ACL count (``npu-smi info -m`` gives the 310's Device ids 3-6 logic ids 0-3, and a container given NPUs 4-7
sees them as npu:0-3), so the torch probe's devices and the run's card meet the tool's. The name carries the NPU id
where it differs from the index ("910A (NPU 4)"), and the NPU id and chip where one NPU holds several ("310P3 (NPU 1
chip 0)"); each chip keeps its own bus id (a 310P card's two chips share one). Memory is the HBM column when its total is not 0, else ``Memory-Usage`` (DDR: all a 310 has; the 910B's DDR
prints ``0 / 0``). An idle 910B shows ~3.3 GB of HBM in use: the driver's reserve, kept as printed like every figure.
``util_gpu_pct`` is the AICore busy share (``util_kind="AICore"``); ``health`` is the Health cell's word.

The process table (``NPU Chip | Process id | Process name | Process memory(MB) [| Process id in container]``)
gives each chip its rows, and () to a chip of an NPU it lists with no row of its own or says ``No running processes
found in NPU n`` of; an NPU it does not list at all (output cut at a rule line) and no table at all give None. A name left empty (npu-smi inside a container cannot name the host's pids) is None.
Where 26.x prints ``Process id in container``, that pid is taken: it is the one that exists where npu-smi ran.

Built against real captures (tests/fixtures/npu-smi/, each with its .source): 910A on 1.9.3 and 22.0.3.1, 8x 910
("910B") on 24.1.0, 2x 910B2C on 23.0.2.1 and 23.0.3, 16x 910B2C loaded on 24.1.rc2, 8x 910B3 on 26.1.0, the
Atlas 800 9010 on 24.1.RC2 (Warning, processes), A3 on 25.2.0 (2 and 16 dies, empty process names), 310 on 20.2.0
(NPU 215) and 21.0.4, 310P3 on 24.1.0.1 (processes) and 25.0.rc1 (Critical), 310B4 on 23.0.0 (Alarm, Bus-Id NA).
The Ascend 950 layout (``NPU ID | Name | Health``) is not read: no real capture of it was found.
"""

from __future__ import annotations

import re

from tui.telemetry.readers import Call, Reading, ReaderError
from tui.telemetry.readers.table import (bus_id, cells, integer, is_rule, missing, overfull, parse_number, to_bytes,
                                         used_total)
from tui.telemetry.sample import DeviceProcess, DeviceSample

EXE = "npu-smi"
ARGS = ["info"]
UTIL_KIND = "AICore"

_TOKEN = re.compile(r"[^\s/]+\s*/\s*[^\s/]+|\S+")          # "57895/ 65536" and "0    / 0" are one token each
_VERSION = re.compile(r"\bVersion:\s*(\S+)")
_NONE_IN = re.compile(r"No running processes found in NPU\s+(\d+)")

Fields = dict[str, str]
Processes = dict[tuple[int, int], tuple[DeviceProcess, ...]]  # (NPU id, chip) -> its rows; (NPU id, -1): listed


def read(call: Call) -> Reading:
    """``npu-smi info``: the chips it could read, and one line for what it could not or what looks wrong."""
    done = call(ARGS)
    if done.problem and not done.stdout.strip():
        return [], [done.problem]
    devices, problem = _table(done.stdout)
    problems = [f"{EXE}: {problem}"] if problem else []
    return devices, problems + [line for line in (overfull(EXE, d) for d in devices) if line]


def parse_info(text: str) -> list[DeviceSample]:
    """``npu-smi info``'s output -> one DeviceSample per chip; ReaderError on text that is not a whole table."""
    devices, problem = _table(text)
    if problem:
        raise ReaderError(problem)
    return devices



def _table(text: str) -> tuple[list[DeviceSample], str | None]:
    """The chips read, and why the rest could not be (None when the whole table was read)."""
    lines = text.splitlines()
    if not text.endswith("\n"):
        lines = lines[:-1]  # a last line without its newline may be cut mid-figure ("5789" of "57895/ 65536")
    start = _title_row(lines)
    if start is None:
        return [], _not_a_table(lines)
    titles = (cells(lines[start]), cells(lines[start + 1]))
    driver = next((m.group(1) for m in map(_VERSION.search, lines[:start]) if m), None)
    rows, end = _chip_rows(lines, start + 2)
    blocks: list[Fields] = []
    for first, second in zip(rows[::2], rows[1::2]):
        block = _block(titles, first, second)
        if block is None:
            problem = f"a chip row unlike its titles ({' | '.join(first)[:60]!r}): the rest not read"
            return _devices(blocks, driver, None), problem
        blocks.append(block)
    if len(rows) % 2:
        problem = f"NPU {_words(rows[-1][0])[0]} has one row of its two: output cut short"
        return _devices(blocks, driver, None), problem
    if not blocks:
        return [], "an npu-smi table with no chip rows"
    processes, problem = _processes(lines[end:])
    return _devices(blocks, driver, processes), problem


def _title_row(lines: list[str]) -> int | None:
    """Where the ``| NPU Name | Health | ...`` row is (the ``| Chip ... | Bus-Id |`` row under it), under the title."""
    for i, line in enumerate(lines[:-1]):
        first, second = cells(line), cells(lines[i + 1])
        if (len(first) >= 3 and _words(first[0])[:2] == ["NPU", "Name"] and first[1] == "Health"
                and len(second) == len(first) and _words(second[0])[:1] == ["Chip"] and second[1] == "Bus-Id"):
            return i if any(map(_is_title, lines[:i])) else None
    return None


def _is_title(line: str) -> bool:
    return line.lstrip("| ").startswith("npu-smi ")   # "| npu-smi 24.1.0    Version: 24.1.0 |"


def _not_a_table(lines: list[str]) -> str:
    said = next((line.strip() for line in lines if line.strip()), "")
    if any(map(_is_title, lines)):
        return "no 'NPU Name | Health' over 'Chip | Bus-Id' title rows: not a chip table this reader knows"
    return f"not npu-smi's table ({said[:80]!r})" if said else "no output"


def _words(text: str) -> list[str]:
    return text.split() or [""]


def _chip_rows(lines: list[str], begin: int) -> tuple[list[list[str]], int]:
    """The boxed rows under the title rows, up to the process table's title row (or the end)."""
    rows: list[list[str]] = []
    for index in range(begin, len(lines)):
        line = lines[index]
        if "Process id" in line:
            return rows, index - 1
        if is_rule(line) or not line.lstrip().startswith("|"):
            continue
        rows.append(cells(line))
    return rows, len(lines)


def _block(titles: tuple[list[str], list[str]], first: list[str], second: list[str]) -> Fields | None:
    """A chip's two rows -> title word -> figure ("Temp(C)": "34", "HBM-Usage(MB)": "57895/ 65536"); None if unlike."""
    if len(first) != len(titles[0]) or len(second) != len(titles[1]):
        return None
    npu_name = first[0].split(None, 1)
    chip = _words(second[0])
    if len(npu_name) < 2 or integer(npu_name[0]) is None or integer(chip[0]) is None:
        return None
    out: Fields = {"NPU": npu_name[0], "Name": npu_name[1], "Health": first[1], "Bus-Id": second[1]}
    title_chip = _words(titles[1][0])
    if len(title_chip) == 2 and len(chip) == 2:
        out["Chip"], out["Id"] = chip        # "Chip Device" (310/310P) or "Chip Phy-ID" (A3)
    else:
        out["Chip"] = chip[0]
    for row_titles, row in zip(titles, (first, second)):
        for title, value in zip(row_titles[2:], row[2:]):
            out |= _figures(title, value)
    return out


def _figures(title: str, value: str) -> Fields:
    """'Power(W) Temp(C) Hugepages-Usage(page)' over '70.0  34  0    / 0' -> each title word's token.

    Fewer tokens than words (a figure left blank): which is which cannot be told, so all of them stay N/A."""
    names, tokens = title.split(), _TOKEN.findall(value)
    if len(tokens) != len(names):
        return {}
    return dict(zip(names, tokens))


def _devices(blocks: list[Fields], driver: str | None,
             processes: Processes | None) -> list[DeviceSample]:
    """One DeviceSample per block, indexed by the chip's own id where printed and unique (see the module doc)."""
    chips_of: dict[str, int] = {}
    for b in blocks:
        chips_of[b["NPU"]] = chips_of.get(b["NPU"], 0) + 1
    out = []
    for index, b in enumerate(blocks):
        npu, chip = integer(b["NPU"]), integer(b["Chip"])
        if chips_of[b["NPU"]] > 1:
            name = f"{b['Name']} (NPU {npu} chip {chip})"
        else:
            name = b["Name"] if npu == index else f"{b['Name']} (NPU {npu})"
        own = None  # no process table, or one that does not list this NPU (cut at a rule line): unknown
        if processes is not None and (npu, -1) in processes:
            own = processes.get((npu, chip), ())
        out.append(_device(b, index, name, driver, own))
    return out


def _device(b: Fields, index: int | None, name: str, driver: str | None,
            processes: tuple[DeviceProcess, ...] | None) -> DeviceSample:
    used, total = used_total(b.get("HBM-Usage(MB)"))
    if not total:  # no HBM column (310), or "0 / 0": the DDR column is the chip's memory
        used, total = used_total(b.get("Memory-Usage(MB)"))
        if not total:
            used, total = None, None  # both "0 / 0": no memory figure at all, N/A rather than 0 of 0
    return DeviceSample(
        index=index,
        name=None if missing(b["Name"]) else name,
        bus_id=bus_id(b["Bus-Id"]),
        driver_version=driver,
        util_gpu_pct=parse_number(b.get("AICore(%)")),
        util_kind=UTIL_KIND,
        mem_used_bytes=used,
        mem_total_bytes=total,
        temperature_c=parse_number(b.get("Temp(C)")),
        power_w=parse_number(b.get("Power(W)")),
        health=None if missing(b["Health"]) else b["Health"],
        processes=processes,
    )


def _processes(lines: list[str]) -> tuple[Processes | None, str | None]:
    """Each chip's processes, each NPU listed; None where there is no process table, or it is cut or not understood."""
    head = next((i for i, line in enumerate(lines) if "Process id" in line and "Process name" in line), None)
    if head is None:
        return None, None
    titles = [t.split()[0] if t.startswith("NPU") else t for t in cells(lines[head])]
    body = [line for line in lines[head + 1:] if line.strip()]
    if not body or not is_rule(body[-1]):
        return None, "the process table is cut short: processes not read"
    found: dict[tuple[int, int], list[DeviceProcess]] = {}
    for line in body:
        none_in = _NONE_IN.search(line)
        if none_in:
            found.setdefault((int(none_in.group(1)), -1), [])
        if is_rule(line) or none_in:
            continue
        values = cells(line)
        row = dict(zip(titles, values))
        where = _words(row.get("NPU", ""))
        npu, chip = integer(where[0]), (integer(where[1]) if len(where) > 1 else 0)
        pid = _pid(row)
        if npu is None or chip is None or pid is None or len(values) != len(titles):
            return None, f"a process row unlike its titles ({line.strip()[:60]!r}): processes not read"
        used = to_bytes(parse_number(row.get("Process memory(MB)")), "MiB")
        found.setdefault((npu, -1), [])
        found.setdefault((npu, chip), []).append(DeviceProcess(pid, row.get("Process name") or None, used))
    return {key: tuple(rows) for key, rows in found.items()}, None


def _pid(row: Fields) -> int | None:
    """The pid in the container where 26.x prints one (it exists where npu-smi ran), else the host's."""
    inside = row.get("Process id in container")
    if inside is not None and not missing(inside) and integer(inside) is not None:
        return integer(inside)
    return integer(row.get("Process id"))
