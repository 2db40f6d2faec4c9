"""Enflame's ``efsmi``: its default boxed table (EFSMI V1.2.0, 1.6.x and 1.7.x layouts).

Each card is two boxed rows of three cells under two title rows:

    | DEV    NAME                 | FW VER            | BUS-ID      ECC           |
    | TEMP   Lpm   Pwr(Usage/Cap) | Mem      GCU Virt | DUsed       SN            |
    | 0      Enflame S60G         | 31.5.3            | 00:2e:00.0  Disable       |
    | 34℃    LP0      N/A         | 23552MiB  SRIOV   | 0%          A018K30520031 |

The titles' words do not map one to one onto the values' ("TEMP" over "39 C", "FW VER" and "GCU Virt" over one word
each), so each cell is read by its own shape, and only under the titles this reader knows (checked first: a layout
it does not know is refused, never guessed):

- ``TEMP`` "39 C" / "34℃"; ``Dpm`` (V1.2: Sleep / Active) or ``Lpm`` (1.6+: LP0 / LP1), the card's power state,
  read into ``pstate``; ``Pwr(Usage/Cap)`` "105W  300W" (V1.2), "68W / 300W" (1.7), "N/A" (1.6 under SR-IOV);
- ``DUsed``: the GCU's busy share ("0.0%", "0%"), so ``util_kind`` is "GCU";
- ``Mem``: the card's memory **total**, never its use. Evidence: the labelled query form ``efsmi -q`` prints the same
  figure as "Mem Size : 42976 MiB" (older driver) / "Total Size : 42976 MiB" with a separate "Used Size" (newer),
  quoted in two hardware collectors (hawkli-1994/gpu_tools, ZStack's Enflame plugin); in the V1.2.0 capture the card
  with ECC disabled prints 49120MiB (48 GiB less 32 MiB) and the one with ECC enabled 42976MiB (7/8 of it: ECC's
  share), whatever either runs; an L300 prints 147456MiB (144 GiB); and efsmi's columnar monitor prints "Mem 42976"
  on every card while its "MUsed %" goes from 2.6 to 84.5. The default table prints no memory in use: None.

The table has no health column (ECC is a mode, Enable/Disable) and no process table: ``health`` and ``processes``
stay None.

Built against real captures (tests/fixtures/efsmi/, each with its .source): 2x S60 on EFSMI V1.2.0.301, 2x S60G on
1.6.3.12 (SR-IOV, power N/A), 1x L300 on 1.7.2.14.
"""

from __future__ import annotations

import re

from tui.telemetry.readers import Call, Reading, ReaderError
from tui.telemetry.readers.table import bus_id, cells, integer, is_rule, missing, parse_number, to_bytes
from tui.telemetry.sample import DeviceSample

EXE = "efsmi"

_DRIVER = re.compile(r"Driver Ver:\s*(\S+)")
_DEV_NAME = re.compile(r"^(\d+)\s+(.+)$")
_TEMP_STATE_POWER = re.compile(r"^(\S+?)\s*(?:C|℃|°C)?\s+(\S+)\s+(.+)$")
_TWO = re.compile(r"^(\S+)\s+(\S+)$")
_MIB = re.compile(r"^(\d+(?:\.\d+)?)\s*MiB$", re.IGNORECASE)
# the title cells this reader knows, as word lists (V1.2.0 says "FW VER" where 1.7 says "Boot FW VER", Dpm where 1.6+
# say Lpm)
_TITLES = (({"DEV", "NAME"}, None, {"BUS-ID", "ECC"}), ({"TEMP", "Pwr(Usage/Cap)"}, {"Mem"}, {"DUsed", "SN"}))


def read(call: Call) -> Reading:
    """The default table (``efsmi`` with no argument); the cards it could read, and one line for what it could not."""
    done = call([])
    if done.problem and not done.stdout.strip():
        return [], [done.problem]
    devices, problem = _table(done.stdout)
    return devices, [f"{EXE}: {problem}"] if problem else []


def parse_table(text: str) -> list[DeviceSample]:
    """``efsmi``'s default output -> one DeviceSample per card; ReaderError on text that is not a whole efsmi table."""
    devices, problem = _table(text)
    if problem:
        raise ReaderError(problem)
    return devices


def _table(text: str) -> tuple[list[DeviceSample], str | None]:
    """The cards read, and why the rest could not be (None when the whole table was read)."""
    lines = text.splitlines()
    if not text.endswith("\n"):
        lines = lines[:-1]  # a last line without its newline may be cut mid-figure ("10" of "105W"): not read
    if not any("Enflame System Management Interface" in line for line in lines[:10]):
        return [], "not efsmi's table (no 'Enflame System Management Interface' banner)"
    start = next((i for i, line in enumerate(lines) if cells(line)[0].startswith("DEV ") and "NAME" in line), None)
    if start is None or start + 1 >= len(lines):
        return [], "no 'DEV NAME | FW VER | BUS-ID ECC' title row: not a card table"
    titles = [cells(lines[start]), cells(lines[start + 1])]
    if not _known(titles):
        return [], f"a card table whose titles this reader does not know ({' | '.join(titles[1])!r}): not read"
    driver = next((m.group(1) for m in map(_DRIVER.search, lines[:start]) if m), None)
    rows = [cells(line) for line in lines[start + 2:] if line.lstrip().startswith("|") and not is_rule(line)]
    devices: list[DeviceSample] = []
    for first, second in zip(rows[::2], rows[1::2]):
        card = _card(first, second, driver) if len(first) == 3 and len(second) == 3 else None
        if card is None:
            return devices, f"a card row unlike its titles ({' | '.join(first)[:60]!r}): the rest not read"
        devices.append(card)
    if len(rows) % 2:
        return devices, f"card {rows[-1][0].split()[0] if rows[-1][0].split() else '?'} has one row of its two: " \
                        "output cut short"
    if not devices:
        return [], "a card table with no card rows"
    return devices, None


def _known(titles: list[list[str]]) -> bool:
    """The two title rows are the three-cell ones this reader was built against (Dpm or Lpm, FW VER or Boot FW VER)."""
    if [len(row) for row in titles] != [3, 3]:
        return False
    for row, expected in zip(titles, _TITLES):
        for cell, words in zip(row, expected):
            if words is not None and not words <= set(cell.split()):
                return False
    return bool({"Dpm", "Lpm"} & set(titles[1][0].split()))


def _card(first: list[str], second: list[str], driver: str | None) -> DeviceSample | None:
    """One card from its two rows; None when a cell is not the shape its title says."""
    dev, bus, low = _DEV_NAME.match(first[0]), _TWO.match(first[2]), _TEMP_STATE_POWER.match(second[0])
    mem, used = _TWO.match(second[1]), _TWO.match(second[2])
    if not (dev and bus and low and mem and used):
        return None
    power, cap = _power(low.group(3))
    return DeviceSample(
        index=integer(dev.group(1)),
        name=dev.group(2).strip(),
        bus_id=bus_id(bus.group(1)),
        driver_version=driver,
        util_gpu_pct=parse_number(used.group(1)),
        util_kind="GCU",
        mem_used_bytes=None,   # the default table prints no memory in use ('Mem' is the total)
        mem_total_bytes=_total(mem.group(1)),
        temperature_c=parse_number(low.group(1)),
        power_w=power,
        power_limit_w=cap,
        pstate=None if missing(low.group(2)) else low.group(2),
    )


def _power(text: str) -> tuple[float | None, float | None]:
    """'105W  300W' (V1.2.0), '68W / 300W' (1.7), 'N/A' (1.6 under SR-IOV) -> (usage, cap) in W."""
    parts = re.split(r"\s+/\s+|\s+", text.strip())
    if len(parts) == 1 and "/" in parts[0] and not missing(parts[0]):
        parts = parts[0].split("/")  # '68W/300W': no build printed it so, but a slash is a slash
    if len(parts) == 2:
        return parse_number(parts[0]), parse_number(parts[1])
    return (parse_number(parts[0]) if len(parts) == 1 else None), None


def _total(text: str) -> int | None:
    m = _MIB.match(text.strip())
    return to_bytes(float(m.group(1)), "MiB") if m else None
