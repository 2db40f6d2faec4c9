"""The device's PCIe link: generation and width, from NVML when pynvml imports, else from sysfs.

An idle GPU trains its link down to save power (an H100 at rest reads gen 1), so the
workload reads the link right after its transfers, while it is up. The bandwidth a
link can carry per direction is the lane rate after line coding times the width:
8b/10b for gen 1-2, 128b/130b for gen 3-5, and gen 6's 242/256 FLIT framing. Packet
headers take a further share, so a real copy reaches less (about 80-90 % of it).
No link is known for the CPU, or for a device whose PCI address PyTorch does not give:
None, shown as N/A.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workloads.facts.missing import NA

SYSFS = Path("/sys/bus/pci/devices")
# GT/s per lane -> generation
GENERATIONS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
# generation -> GB/s per lane per direction after line coding
LANE_GBPS = {1: 2.5 * 8 / 10 / 8, 2: 5.0 * 8 / 10 / 8, 3: 8.0 * 128 / 130 / 8, 4: 16.0 * 128 / 130 / 8,
             5: 32.0 * 128 / 130 / 8, 6: 64.0 * 242 / 256 / 8}


def pci_address(device: Any) -> str | None:
    """'0000:3b:00.0' for a device whose properties give its PCI ids (CUDA's do), else None."""
    if getattr(device, "type", "cpu") == "cpu":
        return None
    from workloads.child import device as dev  # imports torch: lazy, as the caller's torch is

    props = dev.properties(device)
    try:
        return f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
    except (AttributeError, TypeError, ValueError):  # no properties, or no PCI ids in them (a compatibility layer)
        return None


def link_gbps(generation: int | None, width: int | None) -> float | None:
    """GB/s per direction a link of this generation and width carries after line coding."""
    if not generation or not width or generation not in LANE_GBPS:
        return None
    return LANE_GBPS[generation] * width


def generation_of(speed: str) -> int | None:
    """'16.0 GT/s PCIe' (sysfs) -> 4; None for 'Unknown' or a rate no generation has."""
    try:
        rate = float(speed.split()[0])
    except (ValueError, IndexError):
        return None
    return GENERATIONS.get(rate)


def from_sysfs(address: str, root: Path = SYSFS) -> dict[str, Any] | None:
    base = root / address
    try:
        fields = {name: (base / name).read_text().strip() for name in
                  ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")}
    except OSError:
        return None
    return _link("sysfs", generation_of(fields["current_link_speed"]), _int(fields["current_link_width"]),
                 generation_of(fields["max_link_speed"]), _int(fields["max_link_width"]))


def from_nvml(address: str) -> dict[str, Any] | None:
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001 - no NVML (not NVIDIA, or no driver library): sysfs next
        return None
    try:
        handle = pynvml.nvmlDeviceGetHandleByPciBusId(address)
        return _link("NVML", pynvml.nvmlDeviceGetCurrPcieLinkGeneration(handle),
                     pynvml.nvmlDeviceGetCurrPcieLinkWidth(handle), pynvml.nvmlDeviceGetMaxPcieLinkGeneration(handle),
                     pynvml.nvmlDeviceGetMaxPcieLinkWidth(handle))
    except Exception:  # noqa: BLE001 - a field NVML does not give for this device
        return None
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass


def read(address: str | None, root: Path = SYSFS) -> dict[str, Any] | None:
    """The link of the device at ``address``: NVML first, then sysfs; None when neither knows it."""
    if not address:
        return None
    return from_nvml(address) or from_sysfs(address, root)


def _link(source: str, generation: int | None, width: int | None, max_generation: int | None,
          max_width: int | None) -> dict[str, Any] | None:
    if not generation or not width:
        return None
    return {"source": source, "generation": generation, "width": width, "max_generation": max_generation,
            "max_width": max_width, "gbps_per_direction": link_gbps(generation, width),
            "max_gbps_per_direction": link_gbps(max_generation, max_width)}


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def describe(link: dict[str, Any] | None) -> str:
    """'PCIe gen 5 x16 (NVML), 63.0 GB/s per direction'; or N/A."""
    if not link:
        return NA
    said = f"PCIe gen {link['generation']} x{link['width']} ({link['source']}), {link['gbps_per_direction']:.1f} GB/s " \
           "per direction"
    if link.get("max_generation") and (link["max_generation"], link["max_width"]) != (link["generation"], link["width"]):
        said += f"; the device can do gen {link['max_generation']} x{link['max_width']}"
    return said
