"""The NVML source against a fake pynvml: every field read, per-field errors, lost GPUs, caching, units."""

import sys

import pytest

from fake_nvml import (FakeNvml, NVMLError_FunctionNotFound, NVMLError_GpuIsLost, NVMLError_LibraryNotFound,
                       NVMLError_NotSupported, h100)
from tui.telemetry.nvml import NvmlSource
from tui.telemetry.sample import DeviceSample

EVERY_FIELD = [
    "index", "name", "bus_id", "uuid", "driver_version", "runtime_version", "util_gpu_pct", "util_mem_pct",
    "mem_used_bytes", "mem_total_bytes", "mem_reserved_bytes", "temperature_c", "power_w", "power_limit_w",
    "sm_clock_mhz", "sm_clock_max_mhz", "mem_clock_mhz", "mem_clock_max_mhz", "fan_pct", "pstate",
    "throttle_reasons", "pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max", "pcie_tx_kbps",
    "pcie_rx_kbps", "ecc_corrected", "ecc_uncorrected", "retired_pages", "remapped_rows", "processes",
]


def test_every_field_read_from_a_healthy_device_via_the_real_import(monkeypatch):
    fake = FakeNvml([h100(0)])
    monkeypatch.setitem(sys.modules, "pynvml", fake)  # the source does `import pynvml`
    source = NvmlSource()
    assert source.available()
    devices, errors = source.read()
    assert errors == []
    (d,) = devices
    missing = [f for f in EVERY_FIELD if getattr(d, f) is None]
    assert missing == []
    assert d.name == "NVIDIA H100 80GB HBM3"
    assert d.bus_id == "0000:18:00.0"  # NVML's 8-digit domain normalised
    assert d.driver_version == "550.90.07" and d.runtime_version == "12.4"
    assert d.util_gpu_pct == 87 and d.util_mem_pct == 41
    assert d.mem_total_bytes == 80 * 2**30 and d.mem_used_bytes == 30 * 2**30 and d.mem_reserved_bytes == 512 * 2**20
    assert d.power_w == pytest.approx(512.35) and d.power_limit_w == 700.0  # mW -> W
    assert d.pstate == "P0"
    assert d.throttle_reasons == ("idle", "power cap")
    assert (d.pcie_gen, d.pcie_gen_max, d.pcie_width, d.pcie_width_max) == (5, 5, 16, 16)
    assert (d.ecc_corrected, d.ecc_uncorrected, d.retired_pages, d.remapped_rows) == (3, 0, 0, 0)
    assert d.processes[0].pid == 4242 and d.processes[0].used_bytes == 30 * 2**30
    assert d.source == "nvml"


@pytest.mark.parametrize("error", [NVMLError_NotSupported, NVMLError_FunctionNotFound, NVMLError_GpuIsLost])
def test_a_field_error_makes_that_field_none_and_keeps_the_others(error):
    failing = {"nvmlDeviceGetFanSpeed": error, "nvmlDeviceGetTotalEccErrors": error,
               "nvmlDeviceGetRemappedRows": error, "nvmlDeviceGetPowerUsage": error,
               "nvmlDeviceGetCurrentClocksEventReasons": error, "nvmlDeviceGetCurrentClocksThrottleReasons": error}
    source = NvmlSource(module=FakeNvml([h100(0)], errors={0: failing}))
    (d,), errors = source.read()
    assert d.fan_pct is None and d.ecc_corrected is None and d.ecc_uncorrected is None
    assert d.remapped_rows is None and d.power_w is None and d.throttle_reasons is None
    assert d.temperature_c == 61 and d.util_gpu_pct == 87 and d.power_limit_w == 700.0
    assert errors == []


def test_a_missing_function_in_an_old_binding_is_none():
    fake = FakeNvml([h100(0)])
    fake.nvmlDeviceGetRemappedRows = None  # the binding predates the call
    source = NvmlSource(module=fake)
    (d,), _ = source.read()
    assert d.remapped_rows is None and d.name is not None


def test_memory_falls_back_to_v1_when_v2_is_not_supported():
    fake = FakeNvml([h100(0)])
    original = fake.nvmlDeviceGetMemoryInfo

    def v1_only(handle, version=None):
        if version:
            raise NVMLError_FunctionNotFound()
        return original(handle)

    fake.nvmlDeviceGetMemoryInfo = v1_only
    (d,), _ = NvmlSource(module=fake).read()
    assert d.mem_total_bytes == 80 * 2**30 and d.mem_reserved_bytes is None
    assert d.mem_used_bytes == 30 * 2**30 + 512 * 2**20


def test_a_lost_gpu_is_reported_and_the_others_still_read():
    source = NvmlSource(module=FakeNvml([h100(0), h100(1)], lost={0}))
    devices, errors = source.read()
    assert [d.index for d in devices] == [0, 1]
    assert devices[0].name is None and devices[0].driver_version == "550.90.07"
    assert devices[1].name == "NVIDIA H100 80GB HBM3"
    assert errors == ["nvml: GPU 0: GPU is lost"]


def test_no_library_means_the_source_is_absent_not_an_error():
    fake = FakeNvml([], init_error=NVMLError_LibraryNotFound)
    source = NvmlSource(module=fake)
    assert not source.available()
    assert "NVML Shared Library Not Found" in source.unavailable_reason
    assert source.read() == ([], [])
    source.available()
    assert fake.calls["nvmlInit"] == 1  # not retried on every tick


def test_the_real_binding_without_libnvidia_ml_is_absent():
    source = NvmlSource()
    if source.available():  # a machine with a real NVIDIA driver
        devices, _ = source.read()
        assert all(isinstance(d, DeviceSample) for d in devices)
    else:
        assert source.unavailable_reason


def test_power_in_watts_from_a_compatibility_library_is_not_divided_again():
    source = NvmlSource(module=FakeNvml([h100(0, power_mw=245, limit_mw=350)]))
    (d,), _ = source.read()
    assert d.power_w == 245.0 and d.power_limit_w == 350.0


def test_slow_fields_are_cached_and_fast_ones_are_not():
    fake = FakeNvml([h100(0)])
    source = NvmlSource(module=fake, slow_ttl=60.0)
    for _ in range(5):
        source.read()
    assert fake.calls["nvmlDeviceGetUtilizationRates"] == 5
    assert fake.calls["nvmlDeviceGetTemperature"] == 5
    assert fake.calls["nvmlDeviceGetName"] == 1
    assert fake.calls["nvmlDeviceGetTotalEccErrors"] == 2  # corrected + uncorrected, once each
    assert fake.calls["nvmlDeviceGetMaxPcieLinkGeneration"] == 1
    assert fake.calls["nvmlSystemGetDriverVersion"] == 1


def test_not_supported_pstate_and_no_processes():
    fake = FakeNvml([h100(0, pstate=32, procs=[])])
    (d,), _ = NvmlSource(module=fake).read()
    assert d.pstate is None  # NVML_PSTATE_UNKNOWN
    assert d.processes == ()


def test_close_shuts_nvml_down():
    fake = FakeNvml([h100(0)])
    source = NvmlSource(module=fake)
    source.read()
    source.close()
    assert fake.calls["nvmlShutdown"] == 1
