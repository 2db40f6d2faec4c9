"""The host source: CPU, memory, swap, disk, network, load and uptime through psutil. Always present."""

from __future__ import annotations

import os
import socket
import time
from typing import Any, Callable

from tui.telemetry.sample import HostSample


def _safe(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a reading the platform refuses is N/A
        return None


# the shortest time since the last read over which psutil's CPU use is a figure (its clock tick is 10 ms)
MIN_CPU_WINDOW_S = 0.2


class HostSource:
    """Reads the host; IO rates are the difference to the previous read, so the first read has none."""

    name = "host"

    def __init__(self, disk_path: str | None = None) -> None:
        import psutil  # imported here so `import tui.telemetry` stays cheap

        self._psutil = psutil
        self._disk_path = disk_path or _safe(os.getcwd) or "/"  # the cwd holds the run directories
        self._last_io: tuple[float, Any, Any] | None = None
        self._hostname = _safe(socket.gethostname)
        self._cpu_count = _safe(lambda: psutil.cpu_count(logical=True))
        self._boot = _safe(psutil.boot_time)
        # cpu_percent(interval=None) compares with the previous call; prime it so the first
        # reading covers the time since construction rather than saying 0.0
        _safe(lambda: psutil.cpu_percent(interval=None, percpu=True))
        self._cpu_since = time.monotonic()

    def read(self) -> HostSample:
        ps = self._psutil
        per_core = _safe(lambda: ps.cpu_percent(interval=None, percpu=True))
        began, self._cpu_since = self._cpu_since, time.monotonic()
        if self._cpu_since - began < MIN_CPU_WINDOW_S:
            # psutil compares CPU times in clock ticks since the last call: over a few ms (a read right after
            # construction, as `cardbench run` samples at its start) it gives 0.0, which is no reading (the
            # report said "the whole host at its peak: CPU 0.0 %" of a 2-core run at 100 %)
            per_core = None
        cpu = (sum(per_core) / len(per_core)) if per_core else None
        vm = _safe(ps.virtual_memory)
        sw = _safe(ps.swap_memory)
        du = _safe(lambda: ps.disk_usage(self._disk_path))
        load = _safe(os.getloadavg)
        now = time.monotonic()
        disk_io = _safe(lambda: ps.disk_io_counters(perdisk=False))
        net_io = _safe(lambda: ps.net_io_counters(pernic=False))
        rates: dict[str, float | None] = {"disk_read_bps": None, "disk_write_bps": None,
                                          "net_sent_bps": None, "net_recv_bps": None}
        if self._last_io is not None:
            then, last_disk, last_net = self._last_io
            dt = now - then
            if dt > 0:
                if disk_io is not None and last_disk is not None:
                    rates["disk_read_bps"] = max(0.0, (disk_io.read_bytes - last_disk.read_bytes) / dt)
                    rates["disk_write_bps"] = max(0.0, (disk_io.write_bytes - last_disk.write_bytes) / dt)
                if net_io is not None and last_net is not None:
                    rates["net_sent_bps"] = max(0.0, (net_io.bytes_sent - last_net.bytes_sent) / dt)
                    rates["net_recv_bps"] = max(0.0, (net_io.bytes_recv - last_net.bytes_recv) / dt)
        self._last_io = (now, disk_io, net_io)
        return HostSample(
            hostname=self._hostname,
            cpu_count=self._cpu_count,
            cpu_pct=round(cpu, 1) if cpu is not None else None,
            per_core_pct=tuple(per_core) if per_core else None,
            mem_used_bytes=(vm.total - vm.available) if vm is not None else None,
            mem_total_bytes=vm.total if vm is not None else None,
            swap_used_bytes=sw.used if sw is not None else None,
            swap_total_bytes=sw.total if sw is not None else None,
            disk_path=self._disk_path,
            disk_used_bytes=du.used if du is not None else None,
            disk_total_bytes=du.total if du is not None else None,
            disk_free_bytes=du.free if du is not None else None,
            load1=load[0] if load else None,
            load5=load[1] if load else None,
            load15=load[2] if load else None,
            uptime_s=(time.time() - self._boot) if self._boot else None,
            **rates,
        )
