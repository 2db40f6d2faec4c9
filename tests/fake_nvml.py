"""A fake `pynvml` module: devices with per-field errors, call counting, and NVML's error classes.

Used by the telemetry tests (monkeypatched into sys.modules) and by
bench/telemetry_overhead.py. Values follow NVML's units: memory in bytes,
power in mW, PCIe throughput in KB/s.
"""

from __future__ import annotations

import types
from collections import Counter
from typing import Any

NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18

_STRINGS = {
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
    NVML_ERROR_LIB_RM_VERSION_MISMATCH: "RM has detected an NVML/RM version mismatch.",
}


class NVMLError(Exception):
    def __init__(self, value: int):
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return _STRINGS.get(self.value, f"NVML Error with code {self.value}")


class NVMLError_NotSupported(NVMLError):
    def __init__(self) -> None:
        super().__init__(NVML_ERROR_NOT_SUPPORTED)


class NVMLError_FunctionNotFound(NVMLError):
    def __init__(self) -> None:
        super().__init__(NVML_ERROR_FUNCTION_NOT_FOUND)


class NVMLError_GpuIsLost(NVMLError):
    def __init__(self) -> None:
        super().__init__(NVML_ERROR_GPU_IS_LOST)


class NVMLError_LibraryNotFound(NVMLError):
    def __init__(self) -> None:
        super().__init__(NVML_ERROR_LIBRARY_NOT_FOUND)


def h100(index: int = 0, **overrides: Any) -> dict[str, Any]:
    """A healthy H100 under load, in NVML's units."""
    values = {
        "name": "NVIDIA H100 80GB HBM3",
        "uuid": f"GPU-00000000-0000-0000-0000-00000000000{index}",
        "busId": f"00000000:{0x18 + index:02X}:00.0",
        "util": (87, 41),
        "memory": (80 * 2**30, 30 * 2**30, 512 * 2**20),   # total, used, reserved
        "temperature": 61,
        "power_mw": 512_345,
        "limit_mw": 700_000,
        "clock_sm": 1980, "clock_mem": 2619, "max_sm": 1980, "max_mem": 2619,
        "fan": 0,  # SXM boards report no fan; Not Supported is more usual, tested separately
        "pstate": 0,
        "reasons": 0x4 | 0x1,  # power cap + idle bits
        "pcie": (5, 5, 16, 16),  # gen, max gen, width, max width
        "pcie_tx": 1200, "pcie_rx": 3400,
        "ecc": (3, 0),
        "retired": ([], []),
        "remapped": (0, 0, 0, 0),
        "replays": 0,
        "violation_ns": (0, 0),   # power, thermal
        "procs": [(4242, 30 * 2**30)],
    }
    values.update(overrides)
    return values


class _Struct(types.SimpleNamespace):
    pass


class FakeNvml(types.ModuleType):
    """``FakeNvml(devices, errors={index: {"nvmlDeviceGetFanSpeed": NVMLError_NotSupported}})``."""

    NVML_TEMPERATURE_GPU = 0
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2
    NVML_PCIE_UTIL_TX_BYTES = 0
    NVML_PCIE_UTIL_RX_BYTES = 1
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
    NVML_VOLATILE_ECC = 0
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1
    NVML_PERF_POLICY_POWER = 0
    NVML_PERF_POLICY_THERMAL = 1
    nvmlMemory_v2 = 0x2000028
    nvmlClocksEventReasonGpuIdle = 0x1
    nvmlClocksEventReasonApplicationsClocksSetting = 0x2
    nvmlClocksEventReasonSwPowerCap = 0x4
    nvmlClocksEventReasonHwSlowdown = 0x8
    nvmlClocksEventReasonSyncBoost = 0x10
    nvmlClocksEventReasonSwThermalSlowdown = 0x20
    nvmlClocksEventReasonHwThermalSlowdown = 0x40
    nvmlClocksEventReasonHwPowerBrakeSlowdown = 0x80
    nvmlClocksEventReasonDisplayClockSetting = 0x100

    NVMLError = NVMLError
    NVMLError_NotSupported = NVMLError_NotSupported
    NVMLError_FunctionNotFound = NVMLError_FunctionNotFound
    NVMLError_GpuIsLost = NVMLError_GpuIsLost
    NVMLError_LibraryNotFound = NVMLError_LibraryNotFound

    def __init__(self, devices: list[dict[str, Any]], errors: dict[int, dict[str, type[Exception]]] | None = None,
                 init_error: type[Exception] | None = None, lost: set[int] | None = None,
                 driver: str = "550.90.07", cuda: int = 12040) -> None:
        super().__init__("pynvml")
        self.devices = devices
        self.errors = errors or {}
        self.init_error = init_error
        self.lost = lost or set()
        self.driver = driver
        self.cuda = cuda
        self.calls: Counter[str] = Counter()
        self.initialised = False

    # --- helpers
    def _dev(self, fn: str, handle: int) -> dict[str, Any]:
        self.calls[fn] += 1
        err = self.errors.get(handle, {}).get(fn)
        if err is not None:
            raise err()
        return self.devices[handle]

    # --- library
    def nvmlInit(self) -> None:
        self.calls["nvmlInit"] += 1
        if self.init_error is not None:
            raise self.init_error()
        self.initialised = True

    def nvmlShutdown(self) -> None:
        self.calls["nvmlShutdown"] += 1
        self.initialised = False

    def nvmlSystemGetDriverVersion(self) -> str:
        self.calls["nvmlSystemGetDriverVersion"] += 1
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self.calls["nvmlSystemGetCudaDriverVersion"] += 1
        return self.cuda

    def nvmlDeviceGetCount(self) -> int:
        self.calls["nvmlDeviceGetCount"] += 1
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        self.calls["nvmlDeviceGetHandleByIndex"] += 1
        if index in self.lost:
            raise NVMLError_GpuIsLost()
        return index

    # --- per device (handle == index)
    def nvmlDeviceGetName(self, h: int) -> str:
        return self._dev("nvmlDeviceGetName", h)["name"]

    def nvmlDeviceGetUUID(self, h: int) -> str:
        return self._dev("nvmlDeviceGetUUID", h)["uuid"]

    def nvmlDeviceGetPciInfo(self, h: int) -> _Struct:
        return _Struct(busId=self._dev("nvmlDeviceGetPciInfo", h)["busId"])

    def nvmlDeviceGetUtilizationRates(self, h: int) -> _Struct:
        gpu, mem = self._dev("nvmlDeviceGetUtilizationRates", h)["util"]
        return _Struct(gpu=gpu, memory=mem)

    def nvmlDeviceGetMemoryInfo(self, h: int, version: int | None = None) -> _Struct:
        total, used, reserved = self._dev("nvmlDeviceGetMemoryInfo", h)["memory"]
        if version:
            return _Struct(total=total, used=used, free=total - used - reserved, reserved=reserved, version=version)
        return _Struct(total=total, used=used + reserved, free=total - used - reserved)

    def nvmlDeviceGetTemperature(self, h: int, sensor: int) -> int:
        return self._dev("nvmlDeviceGetTemperature", h)["temperature"]

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        return self._dev("nvmlDeviceGetPowerUsage", h)["power_mw"]

    def nvmlDeviceGetEnforcedPowerLimit(self, h: int) -> int:
        return self._dev("nvmlDeviceGetEnforcedPowerLimit", h)["limit_mw"]

    def nvmlDeviceGetPowerManagementLimit(self, h: int) -> int:
        return self._dev("nvmlDeviceGetPowerManagementLimit", h)["limit_mw"]

    def nvmlDeviceGetClockInfo(self, h: int, clock: int) -> int:
        d = self._dev("nvmlDeviceGetClockInfo", h)
        return d["clock_sm"] if clock == self.NVML_CLOCK_SM else d["clock_mem"]

    def nvmlDeviceGetMaxClockInfo(self, h: int, clock: int) -> int:
        d = self._dev("nvmlDeviceGetMaxClockInfo", h)
        return d["max_sm"] if clock == self.NVML_CLOCK_SM else d["max_mem"]

    def nvmlDeviceGetFanSpeed(self, h: int) -> int:
        return self._dev("nvmlDeviceGetFanSpeed", h)["fan"]

    def nvmlDeviceGetPerformanceState(self, h: int) -> int:
        return self._dev("nvmlDeviceGetPerformanceState", h)["pstate"]

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: int) -> int:
        return self._dev("nvmlDeviceGetCurrentClocksEventReasons", h)["reasons"]

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: int) -> int:
        return self._dev("nvmlDeviceGetCurrentClocksThrottleReasons", h)["reasons"]

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h: int) -> int:
        return self._dev("nvmlDeviceGetCurrPcieLinkGeneration", h)["pcie"][0]

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h: int) -> int:
        return self._dev("nvmlDeviceGetMaxPcieLinkGeneration", h)["pcie"][1]

    def nvmlDeviceGetCurrPcieLinkWidth(self, h: int) -> int:
        return self._dev("nvmlDeviceGetCurrPcieLinkWidth", h)["pcie"][2]

    def nvmlDeviceGetMaxPcieLinkWidth(self, h: int) -> int:
        return self._dev("nvmlDeviceGetMaxPcieLinkWidth", h)["pcie"][3]

    def nvmlDeviceGetPcieThroughput(self, h: int, counter: int) -> int:
        d = self._dev("nvmlDeviceGetPcieThroughput", h)
        return d["pcie_tx"] if counter == self.NVML_PCIE_UTIL_TX_BYTES else d["pcie_rx"]

    def nvmlDeviceGetTotalEccErrors(self, h: int, kind: int, counter: int) -> int:
        return self._dev("nvmlDeviceGetTotalEccErrors", h)["ecc"][kind]

    def nvmlDeviceGetRetiredPages(self, h: int, cause: int) -> list[int]:
        return self._dev("nvmlDeviceGetRetiredPages", h)["retired"][cause]

    def nvmlDeviceGetRemappedRows(self, h: int) -> tuple[int, int, int, int]:
        return self._dev("nvmlDeviceGetRemappedRows", h)["remapped"]

    def nvmlDeviceGetPcieReplayCounter(self, h: int) -> int:
        return self._dev("nvmlDeviceGetPcieReplayCounter", h)["replays"]

    def nvmlDeviceGetViolationStatus(self, h: int, policy: int) -> _Struct:
        ns = self._dev("nvmlDeviceGetViolationStatus", h)["violation_ns"][policy]
        return _Struct(referenceTime=0, violationTime=ns)

    def nvmlDeviceGetComputeProcesses(self, h: int) -> list[_Struct]:
        return [_Struct(pid=pid, usedGpuMemory=used) for pid, used in self._dev("nvmlDeviceGetComputeProcesses", h)["procs"]]
