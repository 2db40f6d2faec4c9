"""The device pane: one line per device and one for the host, from the newest telemetry `Sample`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from workloads.facts.formatting import device_tag, format_bytes, reading
from workloads.facts.missing import NA
from workloads.safe_text import one_line

if TYPE_CHECKING:
    from tui.telemetry.sample import Sample

BAR_WIDTH = 10
# (warn, alarm) thresholds; the "!" marks an alarm when there is no colour
TEMP_C = (75.0, 85.0)
MEM_PCT = (90.0, 97.0)
POWER_PCT = (90.0, 98.0)


def _level(value: float | None, limits: tuple[float, float]) -> str:
    if value is None:
        return ""
    if value >= limits[1]:
        return "alarm"
    if value >= limits[0]:
        return "warn"
    return "ok"


_STYLE = {"ok": "green", "warn": "yellow", "alarm": "bold red", "": "dim"}


def _cell(text: str, level: str) -> Text:
    return Text(text + ("!" if level == "alarm" else ""), style=_STYLE[level])


def bar(pct: float | None, width: int = BAR_WIDTH) -> str:
    if pct is None:
        return "?" * width
    filled = max(0, min(width, round(width * pct / 100.0)))
    return "█" * filled + "░" * (width - filled)


def _util(pct: float | None, kind: str | None = None) -> Text:
    # low utilisation while a run is active is the thing to notice: it is not an alarm by itself
    text = Text(reading(pct, "%"), style="dim" if pct is None else "")
    if kind and pct is not None:   # what the figure counts where it is not a GPU's busy share (Ascend's AICore)
        text.append(f" {one_line(kind)}", style="dim")
    return text


def _name(dev) -> Text:
    # a re-drawn screen shows a run's telemetry.jsonl, which anyone may have written: its words made printable
    text = Text(one_line(dev.name or "") or NA)
    level = dev.health_level
    if level is not None and dev.health is not None:   # the tool's own word beside the card it calls unwell
        text.append(f" [{one_line(dev.health)}]", style="bold red" if level == "fail" else "bold yellow")
    return text


def _memory(used: int | None, total: int | None, pct: float | None, *, with_bar: bool = True) -> Text:
    level = _level(pct, MEM_PCT)
    text = Text(bar(pct) + " " if with_bar else "", style=_STYLE[level] if pct is not None else "dim")
    sizes = _pair(used, total)
    # without the bar the figures carry the level's colour (a warning is still seen)
    style = "dim" if used is None else "" if with_bar or level == "ok" else _STYLE[level]
    text.append(sizes + ("!" if level == "alarm" else ""), style=style)
    return text


def _pair(used: int | None, total: int | None) -> str:
    """'60.0/80.0 GiB' (one unit when both share it), 'N/A/80.0 GiB' never: missing reads N/A."""
    if total is None:
        return format_bytes(used)
    a, b = format_bytes(used), format_bytes(total)
    unit_a, unit_b = a.rpartition(" ")[2], b.rpartition(" ")[2]
    if used is not None and unit_a == unit_b:
        return f"{a.rpartition(' ')[0]}/{b}"
    return f"{a}/{b}"


def _power(power: float | None, limit: float | None) -> Text:
    if power is None:
        return Text(NA, style="dim")
    pct = 100.0 * power / limit if limit else None
    body = f"{reading(power)}/{reading(limit, 'W')}" if limit else reading(power, "W")
    return _cell(body, _level(pct, POWER_PCT) or "ok")


def _throttle(reasons: tuple[str, ...] | None) -> Text:
    if reasons is None:
        return Text("throttle " + NA, style="dim")
    if not reasons:
        return Text("no throttle", style="green")
    return Text("THROTTLE " + one_line(",".join(map(str, reasons))), style="bold yellow")


_COLUMNS = ("dev", "name", "util", "memory", "temp", "power", "clock", "throttle")
# what a narrow pane gives up, in this order, before it cuts a card's name: the model matters more than
# a bar (the memory's figures stay), the clock, the throttle state, the power limit
_NARROWER = ({}, {"bar": False}, {"bar": False, "clock": False}, {"bar": False, "clock": False, "throttle": False},
             {"bar": False, "clock": False, "throttle": False, "limit": False})


def _device_cells(index: int, dev, *, bar: bool = True, limit: bool = True) -> dict[str, Text]:
    temp = dev.temperature_c
    return {
        "dev": Text(device_tag(index), style="bold"),
        "name": _name(dev),
        "util": _util(dev.util_gpu_pct, dev.util_kind),
        "memory": _memory(dev.mem_used_bytes, dev.mem_total_bytes, dev.mem_used_pct, with_bar=bar),
        "temp": _cell(reading(temp, "°C"), _level(temp, TEMP_C)),
        "power": _power(dev.power_w, dev.power_limit_w if limit else None),
        "clock": Text(reading(dev.sm_clock_mhz, "MHz"), style="dim" if dev.sm_clock_mhz is None else ""),
        "throttle": _throttle(dev.throttle_reasons),
    }


def _fits(rows: list[dict[str, Text]], columns: list[str], width: int) -> bool:
    """Whether every cell, every name whole, fits in ``width`` cells (one cell of padding between columns)."""
    used = sum(max(row[c].cell_len for row in rows) for c in columns) + len(columns) - 1
    return used <= width


def device_table(sample: Sample | None, width: int = 0) -> Table:
    """One row per device; ``width`` (the pane's, 0: unknown) decides what gives way so the names fit."""
    table = Table.grid(padding=(0, 1), expand=True)
    if sample is None or not sample.devices:
        table.add_column("dev", no_wrap=True)
        table.add_column("name", ratio=1, no_wrap=True, overflow="ellipsis")
        if sample is None:
            table.add_row("", Text("waiting for the first telemetry sample...", style="dim"))
        else:
            table.add_row(Text("GPU", style="bold"), Text("no device seen (N/A)", style="dim"))
        return table
    devices = [(dev.index if dev.index is not None else i, dev) for i, dev in enumerate(sample.devices)]
    for narrower in _NARROWER:
        drop = {c for c in ("clock", "throttle") if narrower.get(c) is False}
        columns = [c for c in _COLUMNS if c not in drop]
        rows = [_device_cells(index, dev, bar=narrower.get("bar", True), limit=narrower.get("limit", True))
                for index, dev in devices]
        if not width or _fits(rows, columns, width):
            break
    for column in columns:
        if column == "name":
            table.add_column(column, ratio=1, no_wrap=True, overflow="ellipsis", min_width=8)
        else:
            table.add_column(column, no_wrap=True, overflow="ellipsis" if column == "throttle" else "fold",
                             justify="right" if column in ("util", "temp", "power", "clock") else "left")
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    return table


def host_line(sample: Sample | None, narrow: bool = False) -> Text:
    """The host's CPU, load, RAM and disk; ``narrow``: one load average and no bar, to stay on one row."""
    if sample is None:
        return Text("")
    host = sample.host
    ram_pct = 100.0 * host.mem_used_bytes / host.mem_total_bytes if (
        host.mem_used_bytes is not None and host.mem_total_bytes) else None
    loads = (host.load1,) if narrow else (host.load1, host.load5, host.load15)
    load = " ".join(reading(v, digits=2) for v in loads)
    text = Text()
    text.append("host ", style="bold")
    cores = f" of {host.cpu_count}" if host.cpu_count else ""
    text.append(f"CPU {reading(host.cpu_pct, '%')}{cores}  load {load}  ")
    text.append("RAM ")
    text.append_text(_memory(host.mem_used_bytes, host.mem_total_bytes, ram_pct, with_bar=not narrow))
    disk_pct = 100.0 * host.disk_used_bytes / host.disk_total_bytes if (
        host.disk_used_bytes is not None and host.disk_total_bytes) else None
    text.append("  disk ")
    text.append(f"{format_bytes(host.disk_free_bytes)} free", style=_STYLE[_level(disk_pct, (90.0, 98.0))])
    return text


# the host line's full form (three load averages, a RAM bar) needs about this many cells
HOST_WIDE = 90
TITLE = "devices"
UNUSED_TITLE = "devices: NOT USED by this run, on the CPU"


class DevicePane(Static):
    """Devices and host at a glance; N/A where a reading is missing.

    While the run shown is on the CPU the title says the cards are not used by it:
    their live readings are the machine's, not the run's.
    """

    sample: reactive[Sample | None] = reactive(None, always_update=True)
    # when the readings are from, for a screen re-drawn later ("run's last sample 12:03:04 UTC"); "" live
    when: reactive[str] = reactive("", init=False)

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.on_cpu = False
        self.unused = False
        self.border_title = TITLE

    def mark_unused(self, on_cpu: bool) -> None:
        self.on_cpu = on_cpu
        self._title()

    def watch_when(self) -> None:
        self._title()

    def _title(self) -> None:
        # "NOT USED" only where cards are listed: on a machine without one the CPU was all there was
        self.unused = self.on_cpu and bool(self.sample is not None and self.sample.devices)
        self.set_class(self.unused, "-unused")
        title = UNUSED_TITLE if self.unused else TITLE
        joiner = "; " if ":" in title else ": "
        self.border_title = f"{title}{joiner}{self.when}" if self.when else title

    def on_resize(self) -> None:
        self.watch_sample(self.sample)   # a narrower pane drops bars before names

    def watch_sample(self, sample: Sample | None) -> None:
        from rich.console import Group

        width = self.content_size.width
        parts = [device_table(sample, width), host_line(sample, narrow=0 < width < HOST_WIDE)]
        if sample is not None and sample.errors:
            parts.append(Text(one_line("; ".join(map(str, sample.errors[:2]))), style="dim", overflow="ellipsis",
                              no_wrap=True))
        self.update(Group(*parts))
        if self.on_cpu:
            self._title()
