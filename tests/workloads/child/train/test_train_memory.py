"""A training run's memory figures: the device's total, and the peak read at most once a second for step events."""
import psutil
import pytest
import torch

from workloads.child.train import memory


def test_the_memory_a_check_compares_with_is_the_devices_total():
    assert memory.total_memory(torch.device("cpu")) == psutil.virtual_memory().total
    assert memory.total_memory(torch.device("meta")) is None  # a device torch gives no figure for: no check


def test_the_peak_is_read_again_only_when_a_second_has_passed_or_when_told(monkeypatch):
    reads = []

    def peak_memory(device):
        reads.append(device)
        return 100 * len(reads), None

    monkeypatch.setattr(memory.devices, "peak_memory", peak_memory)
    peak = memory.PeakMemory(torch.device("cpu"))
    assert peak.at(10.0) == (100, None)            # the first step reads
    assert peak.at(10.5) == (100, None)            # half a second on: the last figures, no read
    assert peak.at(11.0) == (200, None)            # a second on: read again
    assert peak.at(11.1, force=True) == (300, None)  # the end of an epoch reads whatever the clock
    assert len(reads) == 3


@pytest.mark.parametrize("every_s", [memory.MEMORY_EVERY_S])
def test_the_rate_is_the_modules_one_unless_given(monkeypatch, every_s):
    assert memory.PeakMemory(torch.device("cpu")).every_s == every_s
    monkeypatch.setattr(memory, "MEMORY_EVERY_S", 1e9)   # tests slow the clock's reads this way
    assert memory.PeakMemory(torch.device("cpu")).every_s == 1e9
    assert memory.PeakMemory(torch.device("cpu"), every_s=0.0).every_s == 0.0
