"""The doctor's busy-card check: is the card `--device auto` picks already in use by another process? UI-free."""

from __future__ import annotations

from tui.doctor.check import PASS, SKIP, WARN, DoctorCheck
from tui.doctor.checks import _check, _torch_devices
from tui.doctor.facts import Facts
from tui.formatting import NA, nbytes
from tui.telemetry.sample import DeviceSample

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


def _reading(d: DeviceSample) -> tuple[str, str]:
    """'83 % utilisation, 30.0 GiB of 32.0 GiB in use; processes: ...', in English and Chinese."""
    util = f"{d.util_gpu_pct:.0f} %" if d.util_gpu_pct is not None else NA
    used, total = nbytes(d.mem_used_bytes), nbytes(d.mem_total_bytes)
    procs = ", ".join(f"{p.pid} {p.name or NA} ({nbytes(p.used_bytes)})" for p in d.processes or ())
    return (f"{util} utilisation, {used} of {total} in use" + (f"; processes: {procs}" if procs else ""),
            f"利用率 {util}，已用显存 {used} / {total}" + (f"；进程：{procs}" if procs else ""))


def check_busy(f: Facts) -> DoctorCheck:
    cid = "device.busy"
    card = _auto_card(f)
    if not _torch_devices(f):
        # still worth a word: once torch is fixed, auto picks this card
        busy = card is not None and _busy(card)
        reading, reading_zh = _reading(card) if busy else ("", "")
        return _check(cid, SKIP, "torch sees no card: --device auto runs on the CPU"
                      + (f" (GPU{card.index} is already busy: {reading})" if busy else ""),
                      zh="torch 看不到卡：--device auto 会在 CPU 上运行"
                         + (f"（GPU{card.index} 已被占用：{reading_zh}）" if busy else ""))
    if card is None or (card.util_gpu_pct is None and card.mem_used_pct is None):
        return _check(cid, SKIP, "no utilisation or memory reading for the card --device auto picks",
                      zh="--device auto 将选用的卡没有利用率或显存读数")
    label = f"GPU{card.index} {card.name or NA}"
    reading, reading_zh = _reading(card)
    bound = f"busy from {BUSY_UTIL_PCT:g} % utilisation or {BUSY_MEM_FRACTION:.0%} of its memory"
    bound_zh = f"利用率达 {BUSY_UTIL_PCT:g} % 或显存占用达 {BUSY_MEM_FRACTION:.0%} 即视为繁忙"
    seen = {"value": card.util_gpu_pct, "unit": "%"}
    if not _busy(card):
        return _check(cid, PASS, f"{label}: {reading} ({bound})", **seen, zh=f"{label}：{reading_zh}（{bound_zh}）")
    idle = next((d for d in f.devices if d is not card and not _busy(d) and d.util_gpu_pct is not None), None)
    other, other_zh = (f"; GPU{idle.index} is idle", f"；GPU{idle.index} 空闲") if idle else ("", "")
    return _check(cid, WARN, f"{label} is already busy: {reading} ({bound})",
                  "another process (or a run already going) is using this card, so a run on it shares the card "
                  "and reports lower figures: "
                  f"stop that process, or pick another card with --device{other}", **seen,
                  zh=f"{label} 已被占用：{reading_zh}（{bound_zh}）",
                  zh_hint="有其他进程（或已在进行的运行）在使用这块卡，在其上运行会共享该卡并得到偏低的结果："
                          f"停止那个进程，或用 --device 选择另一块卡{other_zh}")
