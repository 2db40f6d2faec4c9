"""Kunlunxin's ``xpu_smi`` (Baidu Kunlun XPUs): its default output in the XRE 5.x and the XRE 4.x layouts.

- XRE 5.x prints an nvidia-smi-like boxed table under ``| XPU-SMI  Driver Version: 5.0.21.21  XPU-RT Version: 5.0.21 |``:
  each card is three rows under three title rows, ``XPU Name Persistence-M | Bus-Id Disp.A | Volatile Uncorr. ECC``
  over ``Fan Temp Perf Pwr:Usage/Cap | Memory-Usage | XPU-Util Compute M.`` over ``| L3-Usage | SR-IOV M.``, then a
  ``Processes:`` block ("No running processes found").
- XRE 4.x prints ``Runtime Version:``/``Driver Version:`` lines and three plain tables, ``DEVICES`` (``DevID | PCI Addr |
  Model | SN | INODE | UseRate | L3 | Memory``, memory as "0 / 32768 MB"), ``VIDEO`` and ``PROCESSES``.

L3 is the chip's on-chip SRAM (96 MiB on a P800, 63 MB on an R300), not its device memory: memory is the Memory
column only. ``XPU-Util``/``UseRate`` is the tool's rename of nvidia-smi's GPU-Util, in the same place: the device's
busy share, the same kind of figure as a GPU's (cnmon's MLU Util is read the same way), so ``util_kind`` stays None
(`UTIL_KIND`); a label there would read as if it counted a part of the chip, as Ascend's AICore does. Neither layout
has a health column. No capture lists a process row, so a process block with rows is unknown (None), never guessed;
an empty one (the XRE 4 PROCESSES table with no row, XRE 5's "No running processes found") is ().

Intel ships a different tool under the same name, ``xpu-smi`` (Level Zero, data-centre and Arc GPUs, PCI vendor
0x8086; Kunlunxin is 0x1d22, "Baidu Technology" in pci.ids): its table, ``discovery`` and ``dump`` output are refused
with a line that says whose they are. ``xpu_smi -m`` (one positional line per card, no titles) is not read: the
third parties that read it disagree on what its columns hold.

Built against real captures (tests/fixtures/xpu-smi/, each with its .source): 8x P800 OAM on XRE 5.0.21.21
(PaddlePaddle/ERNIE docs), 2x R300 on XRE 4.31 (PaddlePaddle docs), and Intel's xpu-smi v2.0 table, ``discovery`` and
``dump`` (intel/xpumanager docs) for the refusal. The nvidia-smi-like boxed card table is read by
`tui.telemetry.readers.table`'s `card_table` and `fields`, as hl-smi's is.
"""

from __future__ import annotations

import re

from tui.telemetry.readers import Call, Reading, ReaderError
from tui.telemetry.readers.table import (bus_id, card_table, cells, fields, integer, is_rule, missing, overfull,
                                         parse_number, used_total, whole_lines)
from tui.telemetry.sample import DeviceProcess, DeviceSample

EXE = "xpu_smi"
UTIL_KIND: str | None = None     # XPU-Util is the device's busy share (see the module docstring)

_XRE5_TITLE = re.compile(r"XPU-SMI\s+Driver Version:\s*(\S+)\s+XPU-RT Version:\s*(\S+)")
_VERSION = re.compile(r"^\s*(Runtime|Driver) Version:\s*(\S+)")
# what only Intel's xpu-smi prints: its table title, discovery's vendor line, dump's CSV header
_INTEL = re.compile(r"Intel\(?R?\)? XPU-SMI|Level Zero:|Vendor Name: Intel|^Timestamp, DeviceId,", re.MULTILINE)


def read(call: Call) -> Reading:
    """The default output (no argument); the cards it could read, one line for what it could not, and one per card
    whose memory used is above its total."""
    done = call([])
    if done.problem and not done.stdout.strip():
        return [], [done.problem]
    devices, problem = _any_layout(done.stdout)
    problems = [f"{EXE}: {problem}"] if problem else []
    return devices, problems + [line for line in (overfull(EXE, d) for d in devices) if line]


def parse_table(text: str) -> list[DeviceSample]:
    """``xpu_smi``'s default output, either layout -> one DeviceSample per card; ReaderError on anything else."""
    devices, problem = _any_layout(text)
    if problem:
        raise ReaderError(problem)
    return devices


def _any_layout(text: str) -> tuple[list[DeviceSample], str | None]:
    lines = whole_lines(text)
    head = "\n".join(lines[:12])
    if _INTEL.search(head):
        return [], "Intel's xpu-smi (Level Zero GPUs, PCI vendor 0x8086), not Kunlunxin's xpu_smi: not read"
    if _XRE5_TITLE.search(head):
        return _xre5(lines)
    if any(line.strip() == "DEVICES" for line in lines) and any(_VERSION.match(line) for line in lines[:5]):
        return _xre4(lines)
    return [], "not Kunlunxin's xpu_smi output (no 'XPU-SMI ... XPU-RT Version' title, no XRE 4 DEVICES table)"


# ---- XRE 5.x: the nvidia-smi-like table ----

def _xre5(lines: list[str]) -> tuple[list[DeviceSample], str | None]:
    title = next(m for m in map(_XRE5_TITLE.search, lines) if m)
    driver, runtime = title.group(1), None if missing(title.group(2)) else title.group(2)
    titles, cards, end, problem = card_table(lines, "XPU")
    processes = _xre5_processes(lines[end:])
    devices = [_xre5_card(fields(titles, rows), driver, runtime).replace(processes=processes) for rows in cards]
    if not devices and problem is None:
        problem = "an XPU-SMI table with no card rows"
    return devices, problem


def _xre5_card(f: dict[str, str], driver: str | None, runtime: str | None) -> DeviceSample:
    used, total = used_total(f.get("Memory-Usage"))  # never L3-Usage: that is the on-chip SRAM
    usage, _, cap = (f.get("Pwr:Usage/Cap") or "").partition("/")
    return DeviceSample(
        index=integer(f.get("XPU")),
        name=_word(f.get("Name")),
        bus_id=bus_id(f.get("Bus-Id")),
        driver_version=driver,
        runtime_version=runtime,
        util_gpu_pct=parse_number(f.get("XPU-Util")),
        util_kind=UTIL_KIND,
        mem_used_bytes=used,
        mem_total_bytes=total,
        temperature_c=parse_number(f.get("Temp")),
        power_w=parse_number(usage),
        power_limit_w=parse_number(cap),
        fan_pct=parse_number(f.get("Fan")),
        pstate=_word(f.get("Perf")),
        ecc_uncorrected=integer(f.get("Volatile Uncorr. ECC")),
    )


def _xre5_processes(lines: list[str]) -> tuple[DeviceProcess, ...] | None:
    """() where the block says no process runs; None where there is no block or it lists rows (no real sample)."""
    if not any("Processes:" in line for line in lines):
        return None
    body = [cells(line)[0] for line in lines if line.strip().startswith("|") and not is_rule(line)]
    return () if any(row.startswith("No running processes found") for row in body) else None


# ---- XRE 4.x: DEVICES / VIDEO / PROCESSES ----

def _xre4(lines: list[str]) -> tuple[list[DeviceSample], str | None]:
    versions = {m.group(1): m.group(2) for m in map(_VERSION.match, lines[:5]) if m}
    rows, after = _plain_table(lines, "DEVICES")
    if len(rows) < 2 or "DevID" not in rows[0]:
        return [], "an XRE 4 DEVICES table without its 'DevID | PCI Addr | ...' titles or card rows"
    titles = rows[0]
    devices: list[DeviceSample] = []
    for row in rows[1:]:
        if len(row) != len(titles) or integer(row[0]) is None:
            return devices, f"a DEVICES row unlike its titles ({' | '.join(row)[:60]!r}): the rest not read"
        devices.append(_xre4_card(dict(zip(titles, row)), versions))
    processes = _xre4_processes(lines[after:])
    return [d.replace(processes=processes) for d in devices], None


def _xre4_card(f: dict[str, str], versions: dict[str, str]) -> DeviceSample:
    used, total = used_total(f.get("Memory"), "MiB")  # "0 / 32768 MB"; never L3 ("0 / 63 MB", on-chip SRAM)
    return DeviceSample(
        index=integer(f.get("DevID")),
        name=_word(f.get("Model")),
        bus_id=bus_id(f.get("PCI Addr")),
        driver_version=versions.get("Driver"),
        runtime_version=versions.get("Runtime"),
        util_gpu_pct=parse_number(f.get("UseRate")),
        util_kind=UTIL_KIND,
        mem_used_bytes=used,
        mem_total_bytes=total,
    )


def _plain_table(lines: list[str], name: str) -> tuple[list[list[str]], int]:
    """The boxed rows (cells) of the table under the line ``name`` ("DEVICES"), and the index after it."""
    start = next((i for i, line in enumerate(lines) if line.strip() == name), None)
    if start is None:
        return [], len(lines)
    rows: list[list[str]] = []
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if line.lstrip().startswith("|"):
            rows.append(cells(line))
        elif not is_rule(line):
            return rows, index  # the next table's name ("VIDEO") or anything that is not part of this one
    return rows, len(lines)


def _xre4_processes(lines: list[str]) -> tuple[DeviceProcess, ...] | None:
    """() for a PROCESSES table with titles and no row; None with no table, or rows (no real sample of one)."""
    rows, _ = _plain_table(lines, "PROCESSES")
    if not rows or "PID" not in rows[0]:
        return None
    return () if len(rows) == 1 else None


def _word(text: str | None) -> str | None:
    return None if missing(text) else (text or "").strip()
