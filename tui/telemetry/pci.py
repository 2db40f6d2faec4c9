"""Accelerators on the PCI bus, read from sysfs before any vendor library is loaded.

A compatibility layer makes a card answer as "NVIDIA" to NVML or torch.cuda;
the PCI vendor id tells who really made it, so the device is named by its
maker (the way gpustack detects vendors).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tui.telemetry.sample import normalize_bus_id

SYSFS_PCI = "/sys/bus/pci/devices"

# PCI vendor id -> maker, for the cards a rented instance may carry
VENDORS: dict[str, str] = {
    "0x10de": "NVIDIA",
    "0x1002": "AMD",
    "0x8086": "Intel",
    "0x1e3e": "Iluvatar CoreX",
    "0x9999": "MetaX",
    "0x1d94": "Hygon",
    "0x1ed5": "Moore Threads",
    "0xcabc": "Cambricon",
    "0x19e5": "Huawei",
    "0x1da3": "Habana Labs",
    "0x1ae0": "Google",
}

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
        return VENDORS.get(self.vendor_id, f"unknown vendor {self.vendor_id}")


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


def vendor_name(vendor_id: str | None) -> str | None:
    if vendor_id is None:
        return None
    return VENDORS.get(vendor_id.lower(), f"unknown vendor {vendor_id.lower()}")
