"""The doctor's card-health check: does the cards' own management tool call any of them unwell? UI-free.

Only the tools that say so are read (npu-smi's Health, mx-smi's GPU-State or `-L`): NVML's
cards have no such word, and their faults are the NVML check's and the Xid lines'. A card whose tool reads more
memory in use than the card has (Moore Threads' IOMMU fault) is unwell too, whatever its state says. The
evidence is the tool's own words for each card, never a paraphrase.
"""

from __future__ import annotations

import re

from tui.doctor.check import FAIL, PASS, SKIP, WARN, DoctorCheck
from tui.doctor.checks import _check
from tui.doctor.facts import Facts
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA
from tui.i18n.voice import listed, quoted
from tui.telemetry.sample import DeviceSample
from workloads.catalogue import message


def tool_line(output: str, d: DeviceSample) -> str | None:
    """The one line of the tool's output that gives this card's word: it holds the word and the card's name as
    printed, and starts with the card's number as printed ('| 3     xxx | Warning |'; npu-smi's NPU id where the
    name carries it, "910A (NPU 4)"). None when no line, or more than one, does, and for a chip of an NPU that holds
    several (their rows start alike): never a line that may be another card's."""
    if not output or d.health is None or d.index is None or not d.name or " chip " in d.name:
        return None
    name, number = d.name, d.index
    npu = re.fullmatch(r"(.+) \(NPU (\d+)\)", d.name)
    if npu:
        name, number = npu.group(1), int(npu.group(2))
    start = re.compile(rf"^[|\s]*(?:GPU#?)?{number}\b")
    found = [line for line in output.splitlines() if d.health in line and name in line and start.match(line)]
    return " ".join(found[0].strip("| \t").split()) if len(found) == 1 else None


def _said(d: DeviceSample, output: str) -> str:
    """'npu-smi: card 3 (910B3, 0000:01:00.0) Warning: "3 xxx | Warning | 206.9 39 1232 / 1232"' - the card as its
    tool names it, its word, and the tool's own line where exactly one line is the card's."""
    where = ", ".join(x for x in (d.name, d.bus_id) if x)
    label = f"card {d.index if d.index is not None else NA}" + (f" ({where})" if where else "")
    tool = (d.source or "").split("+")[-1] or "the tool"
    if d.over_total:
        return f"{tool}: {label} uses {format_bytes(d.mem_used_bytes)} of {format_bytes(d.mem_total_bytes)}"
    line = tool_line(output, d)
    return f"{tool}: {label} {d.health}" + (f': "{line}"' if line else "")


def _level(d: DeviceSample) -> str | None:
    return {"fail": FAIL, "warn": WARN}.get(d.health_level or "")


def check_health(f: Facts) -> DoctorCheck:
    cid = "device.health"
    told = [d for d in f.devices if d.health is not None or _level(d) is not None]
    if not told:
        return _check(cid, SKIP, message("doctor.health.not_said"))
    unwell = [(d, _level(d)) for d in told if _level(d) is not None]
    if not unwell:
        tools = listed(sorted({(d.source or "").split("+")[-1] for d in told}))
        return _check(cid, PASS, message("doctor.health.all_well", n=len(told), tools=tools), value=len(told),
                      unit="devices")
    status = FAIL if any(level == FAIL for _, level in unwell) else WARN
    said = listed((quoted(_said(d, f.cli_output)) for d, _ in unwell), comma=False)
    return _check(cid, status, message("doctor.health.unwell", n=len(unwell), of=len(told), said=said),
                  message("hint.doctor.health"), value=len(unwell), unit="devices")
