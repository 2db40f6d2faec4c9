"""NVML through nvidia-ml-py (``import pynvml``); also any vendor library exporting NVML's symbols.

Every call goes through `_Nvml.query`, which returns None on any NVMLError
(Not Supported, Function Not Found, GPU is lost...), so one missing field never
costs the others. Fields that do not change at run time (names, versions, max
clocks, PCIe maxima) are read once; slow-moving ones (ECC, retired pages,
power limit) are cached for ``slow_ttl`` seconds.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from tui.telemetry.sample import DeviceProcess, DeviceSample, normalize_bus_id
from workloads.errors import first_line

MIB = 1024 * 1024

# clocks-event (throttle) reason bits -> words; same bits under the old "ClocksThrottleReason" names
_REASONS = [
    ("GpuIdle", "idle"),
    ("ApplicationsClocksSetting", "app clocks"),
    ("SwPowerCap", "power cap"),
    ("HwSlowdown", "hw slowdown"),
    ("SyncBoost", "sync boost"),
    ("SwThermalSlowdown", "sw thermal"),
    ("HwThermalSlowdown", "hw thermal"),
    ("HwPowerBrakeSlowdown", "power brake"),
    ("DisplayClockSetting", "display clocks"),
]


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    value = str(value).strip()
    return value or None


def _cuda_version(raw: int | None) -> str | None:
    """nvmlSystemGetCudaDriverVersion's 12040 -> '12.4'."""
    if raw is None or raw <= 0:
        return None
    return f"{raw // 1000}.{(raw % 1000) // 10}"


def _power_w(raw: float | None, limit_raw: float | None) -> float | None:
    """NVML speaks mW; some compatibility libraries answer in W. A card's limit is never under 1 W,
    so a limit below 1000 means the library speaks W (and so does its usage)."""
    if raw is None:
        return None
    speaks_watts = (limit_raw is not None and 0 < limit_raw < 1000) or (limit_raw is None and 0 < raw < 1000)
    return round(float(raw) if speaks_watts else raw / 1000.0, 2)


class _Cache:
    def __init__(self) -> None:
        self._values: dict[tuple[Any, ...], tuple[float, Any]] = {}

    def get(self, key: tuple[Any, ...], ttl: float, fn: Callable[[], Any]) -> Any:
        now = time.monotonic()
        hit = self._values.get(key)
        if hit is not None and now - hit[0] < ttl:
            return hit[1]
        value = fn()
        self._values[key] = (now, value)
        return value


class NvmlSource:
    """Reads every device NVML can see. ``available()`` is False (and cached) when nvmlInit fails."""

    name = "nvml"

    def __init__(self, module: Any = None, slow_ttl: float = 10.0) -> None:
        self._module = module
        self.slow_ttl = slow_ttl
        self._nvml: Any = None
        self._ready: bool | None = None
        self.unavailable_reason: str | None = None
        self._cache = _Cache()
        self._proc_names: dict[int, str | None] = {}

    # ---- lifecycle
    def available(self) -> bool:
        if self._ready is None:
            self._ready = self._init()
        return self._ready

    def _init(self) -> bool:
        try:
            nvml = self._module
            if nvml is None:
                import pynvml as nvml
            nvml.nvmlInit()
        except Exception as exc:  # noqa: BLE001 - LibraryNotFound, DriverNotLoaded, ImportError...
            self.unavailable_reason = first_line(exc, typed=True)
            return False
        self._nvml = nvml
        return True

    def describe(self) -> str:
        if self.available():
            return "NVML loaded"
        return f"NVML not loaded ({self.unavailable_reason})"

    def close(self) -> None:
        if self._ready and self._nvml is not None:
            self.query("nvmlShutdown")
        self._ready = None

    # ---- the one query helper
    def query(self, fn_name: str, *args: Any) -> Any:
        """Call ``pynvml.<fn_name>(*args)``; None on any NVML error or a function this binding lacks."""
        fn = getattr(self._nvml, fn_name, None)
        if fn is None:
            return None
        try:
            return fn(*args)
        except Exception:  # noqa: BLE001 - NVMLError and its subclasses, ctypes errors from old drivers
            return None

    def _slow(self, key: tuple[Any, ...], fn_name: str, *args: Any, ttl: float | None = None) -> Any:
        return self._cache.get((fn_name,) + key, self.slow_ttl if ttl is None else ttl,
                               lambda: self.query(fn_name, *args))

    def _const(self, name: str, default: Any = None) -> Any:
        return getattr(self._nvml, name, default)

    # ---- reading
    def read(self) -> tuple[list[DeviceSample], list[str]]:
        if not self.available():
            return [], []
        count = self.query("nvmlDeviceGetCount")
        if count is None:
            return [], ["nvml: nvmlDeviceGetCount failed"]
        driver = _text(self._slow((), "nvmlSystemGetDriverVersion", ttl=float("inf")))
        cuda = _cuda_version(self._slow((), "nvmlSystemGetCudaDriverVersion", ttl=float("inf")))
        devices, errors = [], []
        for index in range(count):
            try:
                handle = self._nvml.nvmlDeviceGetHandleByIndex(index)
            except Exception as exc:  # noqa: BLE001 - "GPU is lost" lands here
                errors.append(f"nvml: GPU {index}: {exc}")
                devices.append(DeviceSample(index=index, driver_version=driver, runtime_version=cuda,
                                            source=self.name))
                continue
            devices.append(self._device(index, handle, driver, cuda))
        return devices, errors

    def _device(self, index: int, handle: Any, driver: str | None, cuda: str | None) -> DeviceSample:
        q, k = self.query, (index,)
        forever = float("inf")
        name = _text(self._slow(k, "nvmlDeviceGetName", handle, ttl=forever))
        uuid = _text(self._slow(k, "nvmlDeviceGetUUID", handle, ttl=forever))
        pci = self._slow(k, "nvmlDeviceGetPciInfo", handle, ttl=forever)
        bus_id = _text(getattr(pci, "busId", None)) if pci is not None else None

        util = q("nvmlDeviceGetUtilizationRates", handle)
        mem = self._memory(handle)
        limit_raw = self._slow(k, "nvmlDeviceGetEnforcedPowerLimit", handle)
        if limit_raw is None:
            limit_raw = self._slow(k, "nvmlDeviceGetPowerManagementLimit", handle)
        power_raw = q("nvmlDeviceGetPowerUsage", handle)
        pstate = q("nvmlDeviceGetPerformanceState", handle)
        clk_sm, clk_mem = self._const("NVML_CLOCK_SM", 1), self._const("NVML_CLOCK_MEM", 2)

        return DeviceSample(
            index=index,
            name=name,
            bus_id=normalize_bus_id(bus_id) if bus_id else None,
            uuid=uuid,
            driver_version=driver,
            runtime_version=cuda,
            util_gpu_pct=_num(getattr(util, "gpu", None)),
            util_mem_pct=_num(getattr(util, "memory", None)),
            mem_used_bytes=mem[0],
            mem_total_bytes=mem[1],
            mem_reserved_bytes=mem[2],
            temperature_c=_num(q("nvmlDeviceGetTemperature", handle, self._const("NVML_TEMPERATURE_GPU", 0))),
            power_w=_power_w(power_raw, limit_raw),
            power_limit_w=_power_w(limit_raw, limit_raw),
            sm_clock_mhz=_num(q("nvmlDeviceGetClockInfo", handle, clk_sm)),
            sm_clock_max_mhz=_num(self._slow(k + (clk_sm,), "nvmlDeviceGetMaxClockInfo", handle, clk_sm,
                                             ttl=forever)),
            mem_clock_mhz=_num(q("nvmlDeviceGetClockInfo", handle, clk_mem)),
            mem_clock_max_mhz=_num(self._slow(k + (clk_mem,), "nvmlDeviceGetMaxClockInfo", handle, clk_mem,
                                              ttl=forever)),
            fan_pct=_num(q("nvmlDeviceGetFanSpeed", handle)),
            pstate=f"P{pstate}" if isinstance(pstate, int) and 0 <= pstate < 32 else None,
            throttle_reasons=self._reasons(handle),
            pcie_gen=_int(q("nvmlDeviceGetCurrPcieLinkGeneration", handle)),
            pcie_gen_max=_int(self._slow(k, "nvmlDeviceGetMaxPcieLinkGeneration", handle, ttl=forever)),
            pcie_width=_int(q("nvmlDeviceGetCurrPcieLinkWidth", handle)),
            pcie_width_max=_int(self._slow(k, "nvmlDeviceGetMaxPcieLinkWidth", handle, ttl=forever)),
            pcie_tx_kbps=_num(q("nvmlDeviceGetPcieThroughput", handle, self._const("NVML_PCIE_UTIL_TX_BYTES", 0))),
            pcie_rx_kbps=_num(q("nvmlDeviceGetPcieThroughput", handle, self._const("NVML_PCIE_UTIL_RX_BYTES", 1))),
            ecc_corrected=self._ecc(k, handle, corrected=True),
            ecc_uncorrected=self._ecc(k, handle, corrected=False),
            retired_pages=self._retired(k, handle),
            remapped_rows=self._remapped(k, handle),
            pcie_replays=_int(self._slow(k, "nvmlDeviceGetPcieReplayCounter", handle)),
            power_violation_s=self._violation(k, handle, "NVML_PERF_POLICY_POWER", 0),
            thermal_violation_s=self._violation(k, handle, "NVML_PERF_POLICY_THERMAL", 1),
            processes=self._processes(handle),
            source=self.name,
        )

    def _memory(self, handle: Any) -> tuple[int | None, int | None, int | None]:
        v2 = self._const("nvmlMemory_v2")
        info = self.query("nvmlDeviceGetMemoryInfo", handle, v2) if v2 is not None else None
        if info is None:
            info = self.query("nvmlDeviceGetMemoryInfo", handle)
        if info is None:
            return None, None, None
        return _int(getattr(info, "used", None)), _int(getattr(info, "total", None)), \
            _int(getattr(info, "reserved", None))

    def _reasons(self, handle: Any) -> tuple[str, ...] | None:
        mask = self.query("nvmlDeviceGetCurrentClocksEventReasons", handle)
        if mask is None:
            mask = self.query("nvmlDeviceGetCurrentClocksThrottleReasons", handle)
        if mask is None:
            return None
        out = []
        for suffix, word in _REASONS:
            bit = self._const(f"nvmlClocksEventReason{suffix}", self._const(f"nvmlClocksThrottleReason{suffix}"))
            if bit and mask & bit:
                out.append(word)
        return tuple(out)

    def _ecc(self, k: tuple[Any, ...], handle: Any, corrected: bool) -> int | None:
        kind = self._const("NVML_MEMORY_ERROR_TYPE_CORRECTED" if corrected else "NVML_MEMORY_ERROR_TYPE_UNCORRECTED",
                           0 if corrected else 1)
        return _int(self._slow(k + (kind,), "nvmlDeviceGetTotalEccErrors", handle, kind,
                               self._const("NVML_VOLATILE_ECC", 0)))

    def _retired(self, k: tuple[Any, ...], handle: Any) -> int | None:
        total, seen = 0, False
        for cause_name, default in (("NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS", 0),
                                    ("NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR", 1)):
            cause = self._const(cause_name, default)
            pages = self._slow(k + (cause,), "nvmlDeviceGetRetiredPages", handle, cause)
            if pages is not None:
                seen = True
                total += len(pages)
        return total if seen else None

    def _remapped(self, k: tuple[Any, ...], handle: Any) -> int | None:
        rows = self._slow(k, "nvmlDeviceGetRemappedRows", handle)
        if not rows:
            return None
        try:
            return int(rows[0]) + int(rows[1])  # (correctable, uncorrectable, pending, failed)
        except (TypeError, ValueError, IndexError):
            return None

    def _violation(self, k: tuple[Any, ...], handle: Any, policy_name: str, default: int) -> float | None:
        """Seconds the clocks were held down by this policy since the driver loaded (NVML counts nanoseconds);
        a long test reads the change, not this total (`nvidia-smi -q -d PERFORMANCE`'s violation times)."""
        policy = self._const(policy_name, default)
        status = self._slow(k + ("violation", policy), "nvmlDeviceGetViolationStatus", handle, policy)
        ns = _int(getattr(status, "violationTime", None)) if status is not None else None
        return ns / 1e9 if ns is not None else None

    def _processes(self, handle: Any) -> tuple[DeviceProcess, ...] | None:
        procs = self.query("nvmlDeviceGetComputeProcesses", handle)
        if procs is None:
            return None
        out = []
        for p in procs:
            pid = _int(getattr(p, "pid", None))
            used = getattr(p, "usedGpuMemory", None)
            out.append(DeviceProcess(pid, self._proc_name(pid), _int(used)))
        return tuple(out)

    def _proc_name(self, pid: int | None) -> str | None:
        if pid is None:
            return None
        if pid not in self._proc_names:
            if len(self._proc_names) > 1024:
                self._proc_names.clear()
            try:
                with open(f"/proc/{pid}/comm", encoding="utf-8") as fh:
                    self._proc_names[pid] = fh.read().strip() or None
            except OSError:  # another container's pid namespace, or gone
                self._proc_names[pid] = None
        return self._proc_names[pid]


def _num(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
