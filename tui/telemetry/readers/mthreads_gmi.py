"""Moore Threads' ``mthreads-gmi``: ``--query --json`` first, its default table where that fails.

- ``--query --json``: ``{"Driver Version": ..., "GPU": [{"Index", "Product Name", "GPU UUID", "PCI": {"Bus ID"},
  "FB Memory Usage": {"Total", "Used"}, "Utilization": {"Gpu", "Memory"}, "Temperature": {"GPU Current Temp"},
  "Power Readings": {"Power Draw ", "Current Power Limit"}}]}``: some keys end in a space ("Power Draw "), every
  value is a string with its unit ("81920MiB", "0%", "27C", "96.66W"). Only the keys seen in a real capture are read;
  it lists no processes (None).
- The table (no argument): each card is two rows in 1.8 (``ID Name | PCIe | %GPU Mem`` over ``Device Type [Perf] |
  Pcie Lane Width | Temp MPC Capable``) and three from 1.12 on (a third, ``| ECC Mode``); 2.4 adds ``Perf`` (the
  P-state). Memory is ``used(total)`` ("662MiB(16384MiB)"). There is no power column (N/A). The ``Processes:`` block
  lists ``ID PID Process name GPU Memory Usage`` rows, or "No running processes found".

Memory used above total is a fault (an IOMMU that is off or not in effect, per Moore Threads' FAQ): it is kept as
printed and said in one problem line, never clipped.

Built against real captures (tests/fixtures/mthreads-gmi/, each with its .source): tables of 1.8.2 (S80, cut before
its process rows), 1.12.2 (S4000, used 44302MiB above total 32768MiB, cut after the card), 2.0.0 (S80, Xorg
processes), 2.4.1 (8x S5000), and a trimmed ``--query --json`` of 2 of 8 S5000 (driver 3.3.5-server).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui.telemetry.readers import Call, Reading, ReaderError, not_this_build
from tui.telemetry.readers.table import (bus_id, cells, integer, is_rule, missing, overfull, parse_number, to_bytes,
                                         used_total)
from tui.telemetry.sample import DeviceProcess, DeviceSample

EXE = "mthreads-gmi"
# why memory read above total is a fault on this card (Moore Threads' FAQ)
OVER_TOTAL_WHY = "a fault (IOMMU off or not in effect, per Moore Threads' FAQ)"
JSON_ARGS = ["--query", "--json"]

_DRIVER = re.compile(r"Driver Version\s*:\s*(\S+)")
_USED_TOTAL = re.compile(r"(.+?)\((.+)\)")                       # "44302MiB(32768MiB)"
_WIDTH = re.compile(r"(\d+)x\s*(?:\((\d+)x\))?")                  # "16x(16x)": current (max)
_PROCESS = re.compile(r"(\d+)\s+(\d+)\s+(.*?)\s*(\S+)$")         # "0    1123      /usr/lib/xorg/Xorg     134MiB"
_AMOUNT = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*([KMG]i?B|B)$", re.IGNORECASE)


def read(call: Call) -> Reading:
    """JSON where this build has it, else the table; plus a line per card whose memory used is above its total."""
    done = call(JSON_ARGS)
    devices: list[DeviceSample] = []
    if done.returncode == 0 and done.stdout.strip():
        try:
            devices = parse_json(done.stdout)
        except ReaderError:
            devices = []  # an older build that prints its table or usage here: its table below says the same
            not_this_build(call, JSON_ARGS)
    if not devices:
        table = call([])
        if table.problem and not table.stdout.strip():
            return [], [table.problem]
        try:
            devices = parse_table(table.stdout)
        except ReaderError as exc:
            return [], [f"{EXE}: {exc}"]
    return devices, [line for line in (overfull(EXE, d, OVER_TOTAL_WHY) for d in devices) if line]



def parse_json(text: str) -> list[DeviceSample]:
    """``mthreads-gmi --query --json`` -> one DeviceSample per object of its "GPU" list."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ReaderError(f"not JSON: {exc}") from None
    data = _stripped(data)
    if not isinstance(data, dict) or not isinstance(data.get("GPU"), list) or not data["GPU"]:
        raise ReaderError("JSON without a 'GPU' list: not mthreads-gmi --query --json")
    driver = _text(data.get("Driver Version"))
    devices = [_json_card(gpu, driver) for gpu in data["GPU"] if isinstance(gpu, dict)]
    if not devices:
        raise ReaderError("a 'GPU' list with no card objects")
    return devices


def _stripped(value: Any) -> Any:
    """Keys with their trailing spaces taken off ("Power Draw " -> "Power Draw"), all the way down."""
    if isinstance(value, dict):
        return {str(k).strip(): _stripped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


def _text(value: Any) -> str | None:
    return None if not isinstance(value, str) or missing(value) else value.strip()


def _section(gpu: dict[str, Any], name: str) -> dict[str, Any]:
    value = gpu.get(name)
    return value if isinstance(value, dict) else {}


def _json_card(gpu: dict[str, Any], driver: str | None) -> DeviceSample:
    memory, power = _section(gpu, "FB Memory Usage"), _section(gpu, "Power Readings")
    # "Utilization": {"Memory"} is not read: no capture tells a controller's busy share from a capacity share
    util = _section(gpu, "Utilization")
    return DeviceSample(
        index=integer(_text(gpu.get("Index"))),
        name=_text(gpu.get("Product Name")),
        bus_id=bus_id(_text(_section(gpu, "PCI").get("Bus ID"))),
        uuid=_text(gpu.get("GPU UUID")),
        driver_version=driver,
        util_gpu_pct=parse_number(_text(util.get("Gpu"))),
        mem_used_bytes=_amount(_text(memory.get("Used"))),
        mem_total_bytes=_amount(_text(memory.get("Total"))),
        temperature_c=parse_number(_text(_section(gpu, "Temperature").get("GPU Current Temp"))),
        power_w=parse_number(_text(power.get("Power Draw"))),
        power_limit_w=parse_number(_text(power.get("Current Power Limit"))),
    )


def _amount(text: str | None) -> int | None:
    """'81920MiB' -> bytes; None for N/A or a figure without a memory unit."""
    m = _AMOUNT.search(text.strip()) if text else None
    return to_bytes(float(m.group(1)), m.group(2)) if m else None


def parse_table(text: str) -> list[DeviceSample]:
    """``mthreads-gmi``'s default table -> one DeviceSample per card; ReaderError on text that is not one."""
    lines = text.splitlines()
    if not text.endswith("\n"):
        lines = lines[:-1]  # a last line without its newline may be cut mid-figure ("|8" of "|88%"): not read
    head = next((i for i, line in enumerate(lines) if "mthreads-gmi" in line), None)
    top = next((i for i, line in enumerate(lines) if line.startswith("ID") and "|" in line), None)
    if head is None or top is None:
        raise ReaderError("not mthreads-gmi's table (no 'mthreads-gmi:' banner or 'ID Name |' title row)")
    driver = next((m.group(1) for m in map(_DRIVER.search, lines[head:top]) if m), None)
    titles: list[list[str]] = []
    body = top
    for body in range(top, len(lines)):
        if is_rule(lines[body]):
            break
        titles.append(cells(lines[body]))
    blocks, end = _card_blocks(lines, body + 1)
    devices = [_table_card(titles, block, driver) for block in blocks]
    if not devices:
        raise ReaderError("a title row but no card rows: output cut short")
    processes = _processes(lines[end:])
    return [d.replace(processes=None if processes is None else
                      tuple(p for i, p in processes if i == d.index)) for d in devices]


def _card_blocks(lines: list[str], begin: int) -> tuple[list[list[list[str]]], int]:
    """The cards' rows (each card's lines up to the next rule), and where the 'Processes:' part starts."""
    blocks: list[list[list[str]]] = []
    block: list[list[str]] = []
    for index in range(begin, len(lines)):
        line = lines[index]
        if line.strip().startswith("Processes:"):
            return [b for b in blocks + [block] if b], index
        if is_rule(line) or not line.strip():
            blocks.append(block)
            block = []
            continue
        block.append(cells(line))
    return [b for b in blocks + [block] if b], len(lines)


def _table_card(titles: list[list[str]], block: list[list[str]], driver: str | None) -> DeviceSample:
    """One card's rows, each cell read under its title cell ('%GPU  Mem' over '0%    662MiB(16384MiB)')."""
    under: dict[str, str] = {}
    for title_row, row in zip(titles, block):
        for title, value in zip(title_row, row):
            under[" ".join(title.split())] = value
    ident, gpu_mem = under.get("ID Name", "").split(None, 1), under.get("%GPU Mem", "").split(None, 1)
    if not ident or not ident[0].isdigit():
        raise ReaderError(f"a card row that does not start with its ID: {' | '.join(block[0])[:60]!r}")
    used, total = _used_total(gpu_mem[1] if len(gpu_mem) > 1 else None)
    width = _WIDTH.match(under.get("Pcie Lane Width", "").strip())
    perf = under.get("Device Type Perf", "").split()  # 2.4: 'Physical      P0'; older builds have no Perf
    temp = under.get("Temp MPC Capable", "").split()
    return DeviceSample(
        index=int(ident[0]),
        name=ident[1].strip() if len(ident) > 1 and not missing(ident[1]) else None,
        bus_id=bus_id(under.get("PCIe")),
        driver_version=driver,
        util_gpu_pct=parse_number(gpu_mem[0] if gpu_mem else None),
        mem_used_bytes=used,
        mem_total_bytes=total,
        temperature_c=parse_number(temp[0] if temp else None),
        pstate=perf[-1] if len(perf) > 1 and re.fullmatch(r"P\d+", perf[-1]) else None,
        pcie_width=int(width.group(1)) if width else None,
        pcie_width_max=int(width.group(2)) if width and width.group(2) else None,
    )


def _used_total(text: str | None) -> tuple[int | None, int | None]:
    """'44302MiB(32768MiB)' -> (used, total) bytes, as printed (used may be above total)."""
    m = _USED_TOTAL.fullmatch(text.strip()) if text else None
    return used_total(f"{m.group(1)}/{m.group(2)}") if m else (None, None)


def _processes(lines: list[str]) -> list[tuple[int, DeviceProcess]] | None:
    """(card ID, process) for each row; [] for "No running processes found"; None where the block is absent, cut
    short before its closing rule, or holds a row this reader does not understand."""
    if not lines or not lines[0].strip().startswith("Processes:"):
        return None
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("+")), None)
    if start is None:
        return None
    found: list[tuple[int, DeviceProcess]] = []
    for line in lines[start + 1:]:
        row = line.strip()
        if is_rule(row):
            return found  # the closing rule: the block is whole
        if not row or row.startswith("No running processes found"):
            continue
        m = _PROCESS.fullmatch(row)
        if m is None or (missing(m.group(4)) is False and _amount(m.group(4)) is None):
            return None
        found.append((int(m.group(1)), DeviceProcess(int(m.group(2)), m.group(3) or None, _amount(m.group(4)))))
    return None
