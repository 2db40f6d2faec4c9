"""The doctor's busy-card check: is the card `--device auto` picks already in use by another process? UI-free."""

from __future__ import annotations

from tui.doctor.check import PASS, SKIP, WARN, DoctorCheck
from tui.doctor.checks import _check, _torch_devices
from tui.doctor.facts import Facts
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA
from tui.i18n.voice import listed
from tui.telemetry.sample import DeviceSample
from workloads.catalogue import Message, message

# a card is busy from either: an idle one shows 0 % and a few hundred MiB (a driver context) at most
BUSY_UTIL_PCT = 10.0
BUSY_MEM_FRACTION = 0.10


def _auto_card(f: Facts) -> DeviceSample | None:
    """The card `--device auto` trains on, as the CLI or NVML reads it: torch's first visible device.

    That is the first entry of CUDA_VISIBLE_DEVICES (an index or a UUID) when set, else index 0
    (torch orders identical cards by bus, as the CLI does).
    """
    first = (f.env.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip()
    if first.isdigit():
        return next((d for d in f.devices if d.index == int(first)), None)
    return next((d for d in f.devices if d.uuid and first and d.uuid.startswith(first)), None)


def _busy(d: DeviceSample) -> bool:
    used = d.mem_used_pct
    return (d.util_gpu_pct or 0.0) >= BUSY_UTIL_PCT or (used is not None and used >= 100 * BUSY_MEM_FRACTION)


def _reading(d: DeviceSample) -> Message:
    """'83 % utilisation, 30.0 GiB of 32.0 GiB in use; processes: ...', in English and Chinese."""
    util = f"{d.util_gpu_pct:.0f} %" if d.util_gpu_pct is not None else NA
    reading = message("doctor.busy.reading", util=util, used=format_bytes(d.mem_used_bytes), total=format_bytes(d.mem_total_bytes))
    procs = listed(f"{p.pid} {p.name or NA} ({format_bytes(p.used_bytes)}" + (f", {p.owner})" if p.owner else ")")
                   for p in d.processes or ())
    return message("doctor.busy.processes", reading=reading, processes=procs) if d.processes else reading


def check_busy(f: Facts) -> DoctorCheck:
    cid = "device.busy"
    card = _auto_card(f)
    if not _torch_devices(f):
        # still worth a word: once torch is fixed, auto picks this card
        busy = message("doctor.busy.already", index=card.index, reading=_reading(card)) \
            if card is not None and _busy(card) else ""
        return _check(cid, SKIP, message("doctor.busy.no_torch", busy=busy))
    if card is None or (card.util_gpu_pct is None and card.mem_used_pct is None):
        return _check(cid, SKIP, message("doctor.busy.no_reading"))
    said = {"label": f"GPU{card.index} {card.name or NA}", "reading": _reading(card),
            "bound": message("doctor.busy.bound", util=f"{BUSY_UTIL_PCT:g}", memory=f"{BUSY_MEM_FRACTION:.0%}")}
    seen = {"value": card.util_gpu_pct, "unit": "%"}
    if not _busy(card):
        return _check(cid, PASS, message("doctor.busy.idle", **said), **seen)
    idle = next((d for d in f.devices if d is not card and not _busy(d) and d.util_gpu_pct is not None), None)
    other = message("doctor.busy.other_idle", index=idle.index) if idle else ""
    return _check(cid, WARN, message("doctor.busy.busy", **said), message("hint.doctor.busy", other=other), **seen)
