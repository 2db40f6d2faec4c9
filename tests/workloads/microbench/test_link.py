"""The PCIe link from sysfs: generation and width to GB/s per direction, and N/A where nothing is known."""

from __future__ import annotations

import sys

import pytest
from fake_nvml import FakeNvml, NVMLError_NotSupported, h100

from workloads.microbench import link

ADDRESS = "0000:3b:00.0"


def fake_device(root, speed="16.0 GT/s PCIe", width="16", max_speed="16.0 GT/s PCIe", max_width="16"):
    base = root / ADDRESS
    base.mkdir(parents=True)
    for name, value in (("current_link_speed", speed), ("current_link_width", width),
                        ("max_link_speed", max_speed), ("max_link_width", max_width)):
        (base / name).write_text(value + "\n")


def test_gen4_x16_from_sysfs_carries_31_5_gb_s_per_direction(tmp_path):
    fake_device(tmp_path)
    found = link.from_sysfs(ADDRESS, tmp_path)
    assert (found["generation"], found["width"]) == (4, 16)
    assert found["gbps_per_direction"] == pytest.approx(31.5, abs=0.05)
    assert link.describe(found) == "PCIe gen 4 x16 (sysfs), 31.5 GB/s per direction"


def test_a_link_trained_below_its_maximum_says_so(tmp_path):
    fake_device(tmp_path, speed="2.5 GT/s PCIe", width="8", max_speed="32.0 GT/s PCIe")
    found = link.from_sysfs(ADDRESS, tmp_path)
    assert found["gbps_per_direction"] == pytest.approx(2.0)
    assert link.describe(found).endswith("the device can do gen 5 x16")


@pytest.mark.parametrize("speed", ["Unknown", "", "7.0 GT/s"])
def test_an_unknown_speed_is_no_link(tmp_path, speed):
    fake_device(tmp_path, speed=speed)
    assert link.from_sysfs(ADDRESS, tmp_path) is None


def test_no_address_or_no_device_directory_is_n_a(tmp_path):
    assert link.read(None, tmp_path) is None
    assert link.from_sysfs(ADDRESS, tmp_path) is None
    assert link.describe(None) == "N/A"
    assert link.pci_address(type("Device", (), {"type": "cpu"})()) is None


@pytest.mark.parametrize("generation, per_lane", [(1, 0.25), (2, 0.5), (3, 0.985), (5, 3.938), (6, 7.5625)])
def test_lane_rates_follow_each_generation_s_line_coding(generation, per_lane):
    assert link.link_gbps(generation, 1) == pytest.approx(per_lane, abs=0.001)


class BusIdNvml(FakeNvml):
    """The NVML fake, finding a device by its PCI address as nvmlDeviceGetHandleByPciBusId does."""

    def nvmlDeviceGetHandleByPciBusId(self, bus_id: str) -> int:
        for index, device in enumerate(self.devices):
            if device["busId"].lower().split(":", 1)[1] == bus_id.lower().split(":", 1)[1]:
                return index
        raise NVMLError_NotSupported()


def test_nvml_gives_the_link_first_and_is_shut_down_after(monkeypatch, tmp_path):
    fake = BusIdNvml([h100(0, pcie=(5, 5, 16, 16))])
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    fake_device(tmp_path, speed="2.5 GT/s PCIe", width="1")   # sysfs says otherwise: NVML wins
    found = link.read("0000:18:00.0", tmp_path)
    assert link.describe(found) == "PCIe gen 5 x16 (NVML), 63.0 GB/s per direction"
    assert fake.calls["nvmlShutdown"] == 1


def test_a_field_nvml_does_not_give_falls_back_to_sysfs(monkeypatch, tmp_path):
    fake = BusIdNvml([h100(0)], errors={0: {"nvmlDeviceGetCurrPcieLinkGeneration": NVMLError_NotSupported}})
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    address = "0000:18:00.0"
    (tmp_path / address).mkdir()
    for name, value in (("current_link_speed", "8.0 GT/s PCIe"), ("current_link_width", "16"),
                        ("max_link_speed", "8.0 GT/s PCIe"), ("max_link_width", "16")):
        (tmp_path / address / name).write_text(value)
    assert link.describe(link.read(address, tmp_path)) == "PCIe gen 3 x16 (sysfs), 15.8 GB/s per direction"
