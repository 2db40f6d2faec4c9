"""Intel Gaudi's ``hl-smi``: its ``-Q`` CSV query first, its default table where that fails.

- ``hl-smi -Q index,uuid,name,driver_version,memory.total,memory.used,memory.free,power.draw,power.max,temperature.aip,
  utilization.aip --format csv,noheader``: one line per card, every value with its unit despite the CSV ("131072 MiB",
  "226 W", "36 C", "0 %"). ``power.max`` is missing from the query list in Habana's older docs, so an older build may
  refuse this query: any answer that is not eleven such fields a line falls back to the table. It lists neither bus
  ids nor processes (None).
- The table (no argument): ``HL-SMI Version:``/``Driver Version:`` title lines, then two rows a card, ``AIP Name
  Persistence-M | Bus-Id Disp.A | Volatile Uncorr. ECC`` (1.16; ``Volatile Uncor-Events`` from 1.19 on) over ``Fan
  Temp Perf Pwr:Usage/Cap | Memory-Usage | AIP-Util Compute M.``. Its ``Compute M.`` is the share of memory in use
  (96% beside 94963 of 98304 MiB), not a mode: not read. ``Uncor-Events`` counts uncorrectable events of any kind, so
  only the older ``Uncorr. ECC`` count is read as ``ecc_uncorrected``.

The table's ``Compute Processes:`` block has one row per card: ``AIP PID Type Process name Usage`` ("7  107684  C
ray::_RayTrainW  16770MiB", printed without its closing "|"), or "N/A" in every column. N/A there means hl-smi saw no
pid, not that none runs: Habana says to run it as root outside a container to see other users' pids, and the captures
show cards holding 82-96 GB at up to 88% AIP-Util with N/A rows. So a card whose only row is N/A has ``processes``
None (unknown), never (); a card with pid rows has those.

``AIP-Util`` (``utilization.aip``) is the tool's rename of nvidia-smi's GPU-Util, the whole accelerator's busy share
(AIP is Habana's word for the device, as in ``temperature.aip``): the same kind of figure as a GPU's, so ``util_kind``
stays None (`UTIL_KIND`), as for Kunlunxin's XPU-Util and Cambricon's MLU Util. No column states the card's health.

Built against real captures (tests/fixtures/hl-smi/, each with its .source): the ``-Q`` line of 2x HL-325L (Gaudi3,
driver 1.22.1) from all-smi's tests; tables of 8x HL-325L (1.21.0, N/A processes), 8x HL-225 (Gaudi2) on 1.16.0 and
1.20.0 with one real process row each, and 8x HL-225 on 1.21.1 under load; a ``-q`` detail (HL-225) that is refused.
"""

from __future__ import annotations

import re

from tui.telemetry.readers import Call, Reading, ReaderError, not_this_build
from tui.telemetry.readers.table import (bus_id, card_table, cells, fields, integer, is_rule, missing, overfull,
                                         parse_number, to_bytes, used_total, whole_lines)
from tui.telemetry.sample import DeviceProcess, DeviceSample

EXE = "hl-smi"
UTIL_KIND: str | None = None   # AIP-Util is the device's busy share (see the module docstring)
QUERY_FIELDS = ("index", "uuid", "name", "driver_version", "memory.total", "memory.used", "memory.free",
                "power.draw", "power.max", "temperature.aip", "utilization.aip")
QUERY_ARGS = ["-Q", ",".join(QUERY_FIELDS), "--format", "csv,noheader"]

_DRIVER = re.compile(r"\|\s*Driver Version:\s*(\S+)")
_AMOUNT = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*([KMG]i?B|B)?", re.IGNORECASE)
_UNIT = {"W": re.compile(r"([-+]?\d+(?:\.\d+)?)\s*W"), "C": re.compile(r"([-+]?\d+(?:\.\d+)?)\s*C"),
         "%": re.compile(r"([-+]?\d+(?:\.\d+)?)\s*%")}


def read(call: Call) -> Reading:
    """The ``-Q`` query where this build answers it, else the table; plus a line per card whose memory used is above
    its total."""
    done = call(QUERY_ARGS)
    devices: list[DeviceSample] = []
    problems: list[str] = []
    if done.returncode == 0 and done.stdout.strip():
        try:
            devices = parse_query(done.stdout)
        except ReaderError:
            devices = []  # an older build without -Q (or without power.max): its table below says the same
            not_this_build(call, QUERY_ARGS)
    if not devices:
        table = call([])
        if table.problem and not table.stdout.strip():
            return [], [table.problem]
        devices, problem = _table(table.stdout)
        problems = [f"{EXE}: {problem}"] if problem else []
    return devices, problems + [line for line in (overfull(EXE, d) for d in devices) if line]


def parse_query(text: str) -> list[DeviceSample]:
    """The ``-Q`` CSV (`QUERY_FIELDS`, no header) -> one DeviceSample per line; ReaderError on any other line."""
    lines = [line for line in whole_lines(text) if line.strip()]
    if not lines:
        raise ReaderError("no -Q line (a last line without its newline is not read: it may be cut)")
    return [_query_line(line) for line in lines]


def _query_line(line: str) -> DeviceSample:
    values = [v.strip() for v in line.split(",")]
    if len(values) != len(QUERY_FIELDS) or not values[0].isdigit():
        raise ReaderError(f"not an hl-smi -Q line of {len(QUERY_FIELDS)} fields: {line.strip()[:60]!r}")
    f = dict(zip(QUERY_FIELDS, values))
    return DeviceSample(
        index=int(f["index"]),
        name=_word(f["name"]),
        uuid=_word(f["uuid"]),
        driver_version=_word(f["driver_version"]),
        mem_total_bytes=_bytes(f["memory.total"]),
        mem_used_bytes=_bytes(f["memory.used"]),
        power_w=_unit(f["power.draw"], "W"),
        power_limit_w=_unit(f["power.max"], "W"),
        temperature_c=_unit(f["temperature.aip"], "C"),
        util_gpu_pct=_unit(f["utilization.aip"], "%"),
        util_kind=UTIL_KIND,
    )


def _bytes(text: str) -> int | None:
    """'131072 MiB' -> bytes; N/A -> None; anything else is not this query's answer (ReaderError)."""
    if missing(text):
        return None
    m = _AMOUNT.fullmatch(text)
    if m is None:
        raise ReaderError(f"not an amount of memory: {text[:30]!r}")
    return to_bytes(float(m.group(1)), m.group(2) or "MiB")


def _unit(text: str, unit: str) -> float | None:
    """'226 W', '36 C', '0 %' (or the bare number) -> the number; N/A -> None; anything else -> ReaderError."""
    if missing(text):
        return None
    m = _UNIT[unit].fullmatch(text) or re.fullmatch(r"([-+]?\d+(?:\.\d+)?)", text)
    if m is None:
        raise ReaderError(f"not a figure in {unit}: {text[:30]!r}")
    return float(m.group(1))


def parse_table(text: str) -> list[DeviceSample]:
    """``hl-smi``'s default table -> one DeviceSample per card; ReaderError on text that is not a whole table."""
    devices, problem = _table(text)
    if problem:
        raise ReaderError(problem)
    return devices


def _table(text: str) -> tuple[list[DeviceSample], str | None]:
    """The cards read, and why the rest could not be (None when the whole table was read)."""
    lines = whole_lines(text)
    if not any("HL-SMI Version:" in line for line in lines[:6]):
        return [], "not hl-smi's table (no 'HL-SMI Version:' title)"
    driver = next((m.group(1) for m in map(_DRIVER.search, lines[:8]) if m), None)
    titles, cards, end, problem = card_table(lines, "AIP")
    processes = _processes(lines[end:])
    devices = []
    for rows in cards:
        d = _card(fields(titles, rows), driver)
        devices.append(d.replace(processes=processes.get(d.index)) if processes is not None else d)
    if not devices and problem is None:
        problem = "an HL-SMI table with no card rows"
    return devices, problem


def _card(f: dict[str, str], driver: str | None) -> DeviceSample:
    used, total = used_total(f.get("Memory-Usage"))
    usage, _, cap = (f.get("Pwr:Usage/Cap") or "").partition("/")
    return DeviceSample(
        index=integer(f.get("AIP")),
        name=_word(f.get("Name")),
        bus_id=bus_id(f.get("Bus-Id")),
        driver_version=driver,
        util_gpu_pct=parse_number(f.get("AIP-Util")),
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


def _processes(lines: list[str]) -> dict[int | None, tuple[DeviceProcess, ...] | None] | None:
    """Card index -> its processes (pid rows), or None for a card whose row is all N/A (no pid seen, see above);
    None where there is no ``Compute Processes:`` block at all."""
    start = next((i for i, line in enumerate(lines) if "Compute Processes:" in line), None)
    if start is None:
        return None
    rule = next((i for i in range(start, len(lines)) if is_rule(lines[i]) and "=" in lines[i]), len(lines))
    found: dict[int | None, tuple[DeviceProcess, ...] | None] = {}
    for line in lines[rule + 1:]:
        if is_rule(line) or not line.lstrip().startswith("|"):
            break
        words = " ".join(cells(line)).split()   # the row may lack its closing "|"
        if len(words) < 4 or integer(words[0]) is None:
            continue
        card = int(words[0])
        if not words[1].isdigit():
            found.setdefault(card, None)          # "N/A  N/A  N/A  N/A": no pid seen on this card
            continue
        name = " ".join(words[3:-1]) or None
        process = DeviceProcess(int(words[1]), name, _bytes_or_none(words[-1]))
        found[card] = (*(found.get(card) or ()), process)
    return found


def _bytes_or_none(text: str) -> int | None:
    try:
        return _bytes(text)
    except ReaderError:
        return None


def _word(text: str | None) -> str | None:
    return None if missing(text) else (text or "").strip()
