"""Immutable telemetry snapshots: one `DeviceSample` per device, one `HostSample`, one `Sample` per tick.

Every field is Optional and None means "not available" (shown as N/A): a
missing reading is never a zero. Each type round-trips through
``to_dict()``/``from_dict()`` so samples can be written as JSON lines
(``telemetry.jsonl``) and read back by the report.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from workloads.card_health import health_level, over_total
from workloads.rundir.sample_fields import DEVICES, ERRORS, HOST, PER_CORE_PCT, PROCESSES, SOURCES, T, THROTTLE_REASONS

__all__ = ["DeviceProcess", "DeviceSample", "HostSample", "Sample", "normalize_bus_id"]


class DeviceProcess(NamedTuple):
    """A compute process on a device (`nvidia-smi --query-compute-apps=pid,process_name,used_memory`).

    ``pid``, ``name`` and ``used_bytes`` are the tool's; ``owner`` is cardbench's word for whose it is
    (`tui.telemetry.processes`: "cardbench <workload>", "another container's process"), None when not known.
    """

    pid: int | None
    name: str | None
    used_bytes: int | None
    owner: str | None = None


@dataclass(frozen=True)
class DeviceSample:
    """One device at one instant. Units are in the field names; None = N/A."""

    index: int | None = None
    name: str | None = None
    bus_id: str | None = None          # "0000:3B:00.0"
    pci_vendor: str | None = None      # the real maker, from sysfs ("NVIDIA", "AMD", "Iluvatar"...)
    pci_vendor_id: str | None = None   # "0x10de"
    uuid: str | None = None
    driver_version: str | None = None
    runtime_version: str | None = None  # CUDA / ROCm / vendor runtime the driver offers
    compute_capability: str | None = None  # "9.0" (torch's view), or a gfx target ("gfx90a")
    util_gpu_pct: float | None = None
    util_mem_pct: float | None = None  # memory-bandwidth (controller) utilisation, not capacity
    mem_used_bytes: int | None = None
    mem_total_bytes: int | None = None
    mem_reserved_bytes: int | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    sm_clock_mhz: float | None = None
    sm_clock_max_mhz: float | None = None
    mem_clock_mhz: float | None = None
    mem_clock_max_mhz: float | None = None
    fan_pct: float | None = None
    pstate: str | None = None          # "P0"
    health: str | None = None          # the card's state in its management tool's own words ("OK", "Warning",
                                       # "Alarm", "Critical", "Available", "Not Available(reason)"); None: not said
    util_kind: str | None = None       # what util_gpu_pct counts where it is not the GPU's busy share ("AICore")
    throttle_reasons: tuple[str, ...] | None = None  # () = read and none active; None = unknown
    pcie_gen: int | None = None
    pcie_gen_max: int | None = None
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    pcie_tx_kbps: float | None = None  # KB/s, as NVML reports it
    pcie_rx_kbps: float | None = None
    ecc_corrected: int | None = None    # volatile
    ecc_uncorrected: int | None = None  # volatile
    retired_pages: int | None = None
    remapped_rows: int | None = None
    pcie_replays: int | None = None     # PCIe replay counter (link retries), cumulative
    power_violation_s: float | None = None    # time clocks were held below the requested by power, cumulative
    thermal_violation_s: float | None = None  # ... by temperature (NVML's violation status), cumulative
    processes: tuple[DeviceProcess, ...] | None = None
    source: str | None = None          # which source(s) supplied this device, "nvml+nvidia-smi"

    @property
    def mem_used_pct(self) -> float | None:
        if self.mem_used_bytes is None or not self.mem_total_bytes:
            return None
        return 100.0 * self.mem_used_bytes / self.mem_total_bytes

    @property
    def over_total(self) -> bool:
        """Its tool reads more memory in use than the card has (a fault: Moore Threads' IOMMU), kept as read."""
        return over_total(self.mem_used_bytes, self.mem_total_bytes)

    @property
    def health_level(self) -> str | None:
        """"fail", "warn" or None (in order, or nothing said): `workloads.card_health`'s rule."""
        return health_level(self.health, self.mem_used_bytes, self.mem_total_bytes)

    @property
    def key(self) -> str:
        """What identifies the device across sources: the bus id when known, else the index."""
        if self.bus_id:
            return normalize_bus_id(self.bus_id)
        return f"index:{self.index}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue  # absent is smaller on disk and reads back as None
            if f.name == PROCESSES:   # the owner only where said: older readers take three items
                value = [list(p) if p.owner is not None else [p.pid, p.name, p.used_bytes] for p in value]
            elif f.name == THROTTLE_REASONS:
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeviceSample:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        if kwargs.get(PROCESSES) is not None:
            kwargs[PROCESSES] = tuple(DeviceProcess(*p[:4]) for p in kwargs[PROCESSES])
        if kwargs.get(THROTTLE_REASONS) is not None:
            kwargs[THROTTLE_REASONS] = tuple(kwargs[THROTTLE_REASONS])
        return cls(**kwargs)

    def replace(self, **changes: Any) -> DeviceSample:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class HostSample:
    """The host at one instant. Rates are per second over the previous tick (None on the first)."""

    hostname: str | None = None
    cpu_count: int | None = None
    cpu_pct: float | None = None
    per_core_pct: tuple[float, ...] | None = None
    mem_used_bytes: int | None = None
    mem_total_bytes: int | None = None
    swap_used_bytes: int | None = None
    swap_total_bytes: int | None = None
    disk_path: str | None = None
    disk_used_bytes: int | None = None
    disk_total_bytes: int | None = None
    disk_free_bytes: int | None = None
    disk_read_bps: float | None = None
    disk_write_bps: float | None = None
    net_sent_bps: float | None = None
    net_recv_bps: float | None = None
    load1: float | None = None
    load5: float | None = None
    load15: float | None = None
    uptime_s: float | None = None
    # cores other processes than cardbench's used over the tick (tui.telemetry.other_cpu): the host was shared
    other_cpu_cores: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HostSample:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        if kwargs.get(PER_CORE_PCT) is not None:
            kwargs[PER_CORE_PCT] = tuple(kwargs[PER_CORE_PCT])
        return cls(**kwargs)


@dataclass(frozen=True)
class Sample:
    """Everything seen at one tick. ``errors``: one line per source that failed or timed out."""

    t: float                                   # wall-clock time.time() of the tick
    devices: tuple[DeviceSample, ...] = ()
    host: HostSample = field(default_factory=HostSample)
    errors: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()              # sources that answered this tick

    def to_dict(self) -> dict[str, Any]:
        return {
            T: self.t,
            DEVICES: [d.to_dict() for d in self.devices],
            HOST: self.host.to_dict(),
            ERRORS: list(self.errors),
            SOURCES: list(self.sources),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sample:
        return cls(
            t=float(data[T]),
            devices=tuple(DeviceSample.from_dict(d) for d in data.get(DEVICES, ())),
            host=HostSample.from_dict(data.get(HOST) or {}),
            errors=tuple(data.get(ERRORS, ())),
            sources=tuple(data.get(SOURCES, ())),
        )


def normalize_bus_id(bus_id: str) -> str:
    """'00000000:3B:00.0' (NVML, 8-digit domain) and '0000:3b:00.0' (sysfs) -> '0000:3b:00.0'."""
    text = bus_id.strip().lower()
    parts = text.split(":")
    if len(parts) == 3:
        domain = parts[0][-4:].rjust(4, "0")
        return f"{domain}:{parts[1]}:{parts[2]}"
    if len(parts) == 2:  # "3b:00.0" without a domain
        return f"0000:{text}"
    return text
