"""Merge what several sources saw into one `DeviceSample` per device, field by field.

Sources come in priority order (NVML first); for each field the first source
that has a value wins, so a CLI fills what NVML could not read and never
overrides what it did. Devices are matched by PCI bus id, or by index when a
source (the torch probe) knows no bus id.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Iterable, Sequence

from tui.telemetry.pci import PciDevice
from tui.telemetry.sample import DeviceSample, normalize_bus_id

_FIELDS = [f.name for f in fields(DeviceSample) if f.name != "source"]


def _fill(base: DeviceSample, extra: DeviceSample) -> DeviceSample:
    changes = {}
    for name in _FIELDS:
        if getattr(base, name) is None and getattr(extra, name) is not None:
            changes[name] = getattr(extra, name)
    if not changes:
        return base
    sources = [s for s in (base.source or "").split("+") if s]
    for s in (extra.source or "").split("+"):
        if s and s not in sources:
            sources.append(s)
    changes["source"] = "+".join(sources) or None
    return base.replace(**changes)


def _match(merged: list[DeviceSample], device: DeviceSample, taken: set[int]) -> int | None:
    """The merged device this one is, never one its own source already gave (``taken``): two chips of one
    Ascend 310P card share a bus id, and are two devices."""
    if device.bus_id:
        key = normalize_bus_id(device.bus_id)
        for i, m in enumerate(merged):
            if i not in taken and m.bus_id and normalize_bus_id(m.bus_id) == key:
                return i
        if any(m.bus_id for m in merged):
            # both sides know bus ids and none matches: a different device, even if the index agrees
            candidates = [i for i, m in enumerate(merged)
                          if i not in taken and not m.bus_id and m.index == device.index]
            return candidates[0] if candidates else None
    for i, m in enumerate(merged):
        if i in taken:
            continue
        if device.index is not None and m.index == device.index:
            if m.bus_id and device.bus_id and normalize_bus_id(m.bus_id) != normalize_bus_id(device.bus_id):
                continue
            return i
    return None


def merge(per_source: Sequence[Iterable[DeviceSample]], pci: Sequence[PciDevice] = ()) -> tuple[DeviceSample, ...]:
    """One device per physical card, fields filled in source priority order, named by its PCI maker."""
    merged: list[DeviceSample] = []
    for devices in per_source:
        taken: set[int] = set()
        for device in devices:
            at = _match(merged, device, taken)
            if at is None:
                merged.append(device)
                taken.add(len(merged) - 1)
            else:
                merged[at] = _fill(merged[at], device)
                taken.add(at)
    return tuple(_with_pci(merged, pci))


def _with_pci(devices: list[DeviceSample], pci: Sequence[PciDevice]) -> list[DeviceSample]:
    if not pci:
        return devices
    by_bus = {p.bus_id: p for p in pci}
    out = []
    seen = set()
    for d in devices:
        p = by_bus.get(normalize_bus_id(d.bus_id)) if d.bus_id else None
        if p is not None:
            seen.add(p.bus_id)
            d = d.replace(pci_vendor=p.vendor, pci_vendor_id=p.vendor_id)
        out.append(d)
    makers = {p.vendor_id for p in pci}
    if len(makers) == 1:
        # every accelerator on the bus has one maker: a device known only by index is theirs
        only = pci[0]
        out = [d if d.pci_vendor_id else d.replace(pci_vendor=only.vendor, pci_vendor_id=only.vendor_id)
               for d in out]
    if all(d.bus_id for d in out):
        # a card on the bus that no source reports: show it, so "driver missing" is visible
        for p in pci:
            if p.bus_id not in seen:
                out.append(DeviceSample(index=None, bus_id=p.bus_id, pci_vendor=p.vendor,
                                        pci_vendor_id=p.vendor_id, source="pci"))
    return out
