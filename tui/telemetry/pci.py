"""Accelerators on the PCI bus, read from sysfs before any vendor library is loaded.

A compatibility layer makes a card answer as "NVIDIA" to NVML or torch.cuda;
the PCI vendor id tells who really made it, so the device is named by its
maker (the way gpustack detects vendors).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tui.telemetry.sample import normalize_bus_id
from tui.telemetry.vendors import maker

SYSFS_PCI = "/sys/bus/pci/devices"

# display controllers that are never the accelerator (a server's BMC VGA, a VM's virtual display)
NOT_ACCELERATORS = {"0x1a03", "0x102b", "0x1234", "0x1af4", "0x15ad", "0x1414"}

# PCI base classes of compute devices: 0x03 display controller, 0x12 processing accelerator
ACCELERATOR_CLASSES = ("0x03", "0x12")


@dataclass(frozen=True)
class PciDevice:
    bus_id: str          # normalised "0000:3b:00.0"
    vendor_id: str       # "0x10de"
    device_id: str | None
    class_id: str        # "0x030200"

    @property
    def vendor(self) -> str:
        return maker(self.vendor_id) or ""


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read().strip().lower()
    except OSError:
        return None


def scan(root: str = SYSFS_PCI) -> list[PciDevice]:
    """Accelerator-class PCI devices under ``root``; [] where there is no sysfs (macOS, some containers)."""
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return []
    found = []
    for entry in entries:
        base = os.path.join(root, entry)
        class_id = _read(os.path.join(base, "class"))
        vendor_id = _read(os.path.join(base, "vendor"))
        if not class_id or not vendor_id or not class_id.startswith(ACCELERATOR_CLASSES):
            continue
        if vendor_id in NOT_ACCELERATORS:
            continue
        found.append(PciDevice(bus_id=normalize_bus_id(entry), vendor_id=vendor_id,
                               device_id=_read(os.path.join(base, "device")), class_id=class_id))
    return found

