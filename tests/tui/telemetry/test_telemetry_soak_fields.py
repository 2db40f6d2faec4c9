"""What a long test watches besides the usual readings: PCIe replays and NVML's power/thermal violation time."""

from fake_cli import only_on_path, write_cli
from fake_nvml import FakeNvml, NVMLError_NotSupported, h100
from tui.telemetry.nvml import NvmlSource
from tui.telemetry.sample import DeviceSample, Sample
from tui.telemetry.smi_csv import SmiCsvSource
from workloads.soak.intervals import IntervalBook
from workloads.soak.verdict import judge


def test_replays_and_violation_times_are_read_in_seconds():
    fake = FakeNvml([h100(0, replays=7, violation_ns=(2_500_000_000, 4_000_000_000))])
    (d,), errors = NvmlSource(module=fake).read()
    assert errors == []
    assert (d.pcie_replays, d.power_violation_s, d.thermal_violation_s) == (7, 2.5, 4.0)
    assert DeviceSample.from_dict(d.to_dict()) == d   # telemetry.jsonl keeps them


def test_a_driver_without_them_reads_none_not_zero():
    failing = {"nvmlDeviceGetPcieReplayCounter": NVMLError_NotSupported,
               "nvmlDeviceGetViolationStatus": NVMLError_NotSupported}
    (d,), _ = NvmlSource(module=FakeNvml([h100(0)], errors={0: failing})).read()
    assert (d.pcie_replays, d.power_violation_s, d.thermal_violation_s) == (None, None, None)
    assert d.temperature_c == 61


def test_the_soak_reads_their_change_from_the_samples_the_sampler_writes():
    fake = FakeNvml([h100(0)])
    source = NvmlSource(module=fake, slow_ttl=0)
    book = IntervalBook(0.0, 60, 120)
    for t in range(120):
        if t == 70:   # in the second interval: 3 link replays, and 30 s held down by temperature
            fake.devices[0].update(replays=3, violation_ns=(0, 30_000_000_000))
        devices, _ = source.read()
        book.add_sample(Sample(t=float(t), devices=tuple(devices)).to_dict())
    rows = book.close_all(120)
    assert rows[0]["devices"]["GPU0"]["deltas"]["pcie_replays"] == 0
    assert rows[1]["devices"]["GPU0"]["deltas"] == {**rows[0]["devices"]["GPU0"]["deltas"], "pcie_replays": 3,
                                                    "thermal_violation_s": 30.0}
    verdict, findings = judge(rows)
    assert verdict == "WARN"
    said = {f.rule: f.text for f in findings}
    assert said["thermal"] == "GPU0: thermal throttling 50% of interval 2, 1970-01-01 00:01:00 UTC"
    assert said["pcie_replays"] == "GPU0: 3 more PCIe replays in interval 2, 1970-01-01 00:01:00 UTC"


def test_the_nvidia_smi_path_reads_replays_and_throttled_time(tmp_path, monkeypatch):
    gpu = {"index": "0", "name": "NVIDIA H100 80GB HBM3", "pci.bus_id": "00000000:18:00.0",
           "pcie.replay_counter": "2",
           # as a 595 driver prints them (a unit left on though nounits was asked)
           "clocks_event_reasons_counters.sw_power_cap": "91403239 us",
           "clocks_event_reasons_counters.sw_thermal_slowdown": "0"}
    write_cli(tmp_path, "nvidia-smi", {"gpus": [gpu], "apps": None})
    only_on_path(monkeypatch, tmp_path)
    (d,), errors = SmiCsvSource().read()
    assert errors == []
    assert (d.pcie_replays, d.power_violation_s, d.thermal_violation_s) == (2, 91.403239, 0.0)


def test_a_driver_that_refuses_the_counters_still_reads_the_rest(tmp_path, monkeypatch):
    gpu = {"index": "0", "name": "Tesla V100", "temperature.gpu": "40"}
    invalid = ["pcie.replay_counter", "clocks_event_reasons_counters.sw_power_cap",
               "clocks_event_reasons_counters.sw_thermal_slowdown"]
    write_cli(tmp_path, "nvidia-smi", {"gpus": [gpu], "invalid": invalid, "apps": None})
    only_on_path(monkeypatch, tmp_path)
    (d,), errors = SmiCsvSource().read()
    assert errors == [] and d.temperature_c == 40
    assert (d.pcie_replays, d.power_violation_s, d.thermal_violation_s) == (None, None, None)
