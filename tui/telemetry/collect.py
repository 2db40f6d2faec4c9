"""One tick: read every present source, merge the devices, add the host and the PCI makers."""

from __future__ import annotations

import time
from typing import Any, Sequence

from tui.telemetry import pci as pci_bus
from tui.telemetry.merge import merge
from tui.telemetry.sample import DeviceSample, HostSample, Sample
from tui.telemetry.source import DeviceSource
from workloads.errors import first_line

# a lower-priority source that added nothing last time is re-read this rarely (a CLI costs a process)
FALLBACK_INTERVAL_S = 10.0
PCI_RESCAN_S = 60.0


def default_sources() -> list[DeviceSource]:
    """NVML, then nvidia-smi-compatible CLIs, then vendor JSON tools, then the other vendors' CLIs (their tables)."""
    from tui.telemetry.nvml import NvmlSource
    from tui.telemetry.smi_csv import SmiCsvSource
    from tui.telemetry.vendor_cli import VendorCliSource
    from tui.telemetry.vendor_json import VendorJsonSource

    return [NvmlSource(), SmiCsvSource(), VendorJsonSource(), VendorCliSource()]


class Collector:
    """Holds the sources between ticks (NVML handles, cached slow fields, the torch probe's answer)."""

    def __init__(self, sources: Sequence[DeviceSource] | None = None, host: Any = None,
                 torch_probe: Any = True, pci_root: str = pci_bus.SYSFS_PCI,
                 fallback_interval: float = FALLBACK_INTERVAL_S) -> None:
        self.sources = list(sources) if sources is not None else default_sources()
        if torch_probe is True:
            from tui.telemetry.torch_probe import TorchProbe

            torch_probe = TorchProbe()
        self.torch = torch_probe or None
        if host is None:
            from tui.telemetry.host import HostSource

            host = HostSource()
        self.host = host
        self.pci_root = pci_root
        self.fallback_interval = fallback_interval
        self._pci: list[pci_bus.PciDevice] = []
        self._pci_at = float("-inf")
        # name -> (monotonic time of read, devices, errors, contributed-last-time)
        self._last: dict[str, tuple[float, list[DeviceSample], list[str], bool]] = {}

    def _read_source(self, source: DeviceSource, higher_found: bool, now: float) -> tuple[list[DeviceSample], list[str]]:
        last = self._last.get(source.name)
        if last is not None and higher_found and not last[3] and now - last[0] < self.fallback_interval:
            return last[1], last[2]
        try:
            devices, errors = source.read()
        except Exception as exc:  # noqa: BLE001 - a broken source is reported, never fatal
            devices, errors = [], [f"{source.name}: {first_line(exc, typed=True)}"]
        self._last[source.name] = (now, devices, errors, True)
        return devices, errors

    def collect(self, wait_for_torch: float = 0.0) -> Sample:
        t = time.time()
        now = time.monotonic()
        per_source: list[list[DeviceSample]] = []
        errors: list[str] = []
        answered: list[str] = []
        found = False
        for source in self.sources:
            try:
                present = source.available()
            except Exception:  # noqa: BLE001
                present = False
            if not present:
                continue
            devices, errs = self._read_source(source, found, now)
            errors.extend(errs)
            if devices:
                answered.append(source.name)
                per_source.append(devices)
                found = True
        if self.torch is not None:
            if wait_for_torch > 0:
                self.torch.wait(wait_for_torch)
            devices, errs = self.torch.read()
            errors.extend(errs)
            if devices:
                answered.append(self.torch.name)
                per_source.append(devices)
        if now - self._pci_at > PCI_RESCAN_S:
            self._pci = pci_bus.scan(self.pci_root)
            self._pci_at = now
        merged = merge(per_source, self._pci)
        self._note_contributions(merged)
        try:
            host = self.host.read()
        except Exception as exc:  # noqa: BLE001
            host = HostSample()
            errors.append(f"host: {first_line(exc, typed=True)}")
        return Sample(t=t, devices=merged, host=host, errors=tuple(errors), sources=tuple(answered))

    def _note_contributions(self, merged: Sequence[DeviceSample]) -> None:
        used = set()
        for d in merged:
            used.update((d.source or "").split("+"))
        for name, (at, devices, errs, _) in list(self._last.items()):
            self._last[name] = (at, devices, errs, name in used)

    def close(self) -> None:
        for source in self.sources:
            try:
                source.close()
            except Exception:  # noqa: BLE001
                pass
        if self.torch is not None:
            self.torch.close()
