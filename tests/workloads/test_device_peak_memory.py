"""The CPU's peak memory for every workload (workloads/child/device.py): VmHWM, reset between phases."""

from __future__ import annotations

import torch

from workloads.child import device

CPU = torch.device("cpu")
MiB = 2**20


def test_a_reset_forgets_an_earlier_peak_and_a_later_one_counts():
    big = torch.ones(32 * MiB)  # 128 MiB touched, then freed (above glibc's mmap threshold: given back at once)
    before, _ = device.peak_memory(CPU)
    del big
    assert device.reset_peak_memory(CPU)
    after, reserved = device.peak_memory(CPU)
    assert reserved is None and after < before - 100 * MiB  # ru_maxrss would still hold the 128 MiB
    small = torch.ones(16 * MiB)  # 64 MiB: the new peak holds it
    assert device.peak_memory(CPU)[0] > after + 50 * MiB
    del small


def test_without_proc_the_peak_is_ru_maxrss_and_cannot_be_reset(monkeypatch):
    import resource

    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(device, "open", no_proc, raising=False)
    assert device.reset_peak_memory(CPU) is False
    assert device.peak_memory(CPU) == (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, None)
