"""The report's table of the cards as their management tool read them at export time (beside its own output).

The tool's screenshot is what a campaign asks for; this table is what cardbench made of it, so a reader can see
each card's state, utilisation (and what it counts), memory, temperature, power and who holds it, figure by
figure, N/A where the tool printed nothing. UI-free: the detection sample's dicts in, document blocks out.
"""

from __future__ import annotations

from typing import Any

from workloads.facts.formatting import format_bytes, reading
from workloads.facts.missing import NA
from tui.report.document import Block, Para, Table
from tui.report.i18n import Words
from tui.report.report_data import device_name
from tui.telemetry.processes import NOT_SHOWN, OTHER_CONTAINER
from workloads.rundir.sample_fields import (HEALTH, INDEX, MEM_TOTAL_BYTES, MEM_USED_BYTES, NAME, POWER_LIMIT_W,
                                            POWER_W, PROCESSES, SOURCE, TEMPERATURE_C, UTIL_GPU_PCT, UTIL_KIND)

MAX_PROCESSES = 4   # named per card; the rest counted


def _util(d: dict[str, Any]) -> str:
    value = reading(d.get(UTIL_GPU_PCT), "%")
    kind = d.get(UTIL_KIND)
    return f"{value} {kind}" if kind and d.get(UTIL_GPU_PCT) is not None else value


def _memory(d: dict[str, Any]) -> str:
    used, total = d.get(MEM_USED_BYTES), d.get(MEM_TOTAL_BYTES)
    return NA if used is None and total is None else f"{format_bytes(used)} / {format_bytes(total)}"


def _power(d: dict[str, Any]) -> str:
    power, cap = d.get(POWER_W), d.get(POWER_LIMIT_W)
    return NA if power is None else reading(power, "W", 1) + (f" / {reading(cap, 'W', 1)}" if cap is not None else "")


def _processes(d: dict[str, Any], w: Words) -> str:
    procs = d.get(PROCESSES)
    if procs is None:
        return NA
    if not procs:
        return w("none")
    named = [_process(list(p), w) for p in procs[:MAX_PROCESSES]]
    more = len(procs) - len(named)
    return w.join(named) + (w("cards_more", n=more) if more else "")


def _process(p: list[Any], w: Words) -> str:
    """'12345 python 5.0 GiB' as the tool printed it, quoted, and cardbench's word for whose it is."""
    pid, name, used = p[0], p[1], p[2]
    owner = p[3] if len(p) > 3 else None
    said = w.quote(f"{pid} {name or NA} {format_bytes(used)}")
    if owner == OTHER_CONTAINER:
        return said + w("cards_other_container")
    if owner == NOT_SHOWN:
        return said + w("cards_not_shown")
    if isinstance(owner, str) and owner.startswith("cardbench "):
        return said + w("cards_own", workload=w.quote(owner.removeprefix("cardbench ")))
    return said


def cards_read(devices: list[dict[str, Any]], w: Words) -> list[Block]:
    """A row per card a vendor tool read (its state, figures and processes); nothing where no tool read one."""
    read = [d for d in devices if d.get(SOURCE) and d.get(SOURCE) not in ("pci", "torch")]
    if not read:
        return []
    tools = sorted({str(d[SOURCE]).split("+")[0] for d in read})
    rows = [[device_name(d.get(INDEX), d.get(NAME), w), w.quote(d[HEALTH]) if d.get(HEALTH) else NA,
             _util(d), _memory(d), reading(d.get(TEMPERATURE_C), "°C"), _power(d), _processes(d, w)]
            for d in read]
    return [Para(w("cards_read", tools=w.join(w.quote(t) for t in tools))),
            Table([w("device"), w("cards_state"), w("cards_util"), w("cards_memory"), w("cards_temp"),
                   w("cards_power"), w("cards_processes")], rows)]
