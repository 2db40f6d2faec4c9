"""The CPU's peak memory for every workload (workloads/child/device.py): VmHWM, reset between phases."""

from __future__ import annotations

import mmap

import torch

from workloads.child import device

CPU = torch.device("cpu")
MiB = 2**20


def _touched(size: int) -> mmap.mmap:
    """``size`` bytes of fresh anonymous memory, every page written: resident now, whatever the allocator holds
    (inside a long test process, a tensor may reuse pages already resident, and the peak need not move)."""
    block = mmap.mmap(-1, size)
    for offset in range(0, size, mmap.PAGESIZE):
        block[offset] = 1
    return block


def test_a_reset_forgets_an_earlier_peak_and_a_later_one_counts():
    big = _touched(128 * MiB)
    before, _ = device.peak_memory(CPU)
    big.close()   # unmapped: given back at once
    assert device.reset_peak_memory(CPU)
    after, reserved = device.peak_memory(CPU)
    assert reserved is None and after < before - 100 * MiB  # ru_maxrss would still hold the 128 MiB
    small = _touched(64 * MiB)  # the new peak holds it
    assert device.peak_memory(CPU)[0] > after + 50 * MiB
    small.close()


def test_without_proc_the_peak_is_ru_maxrss_and_cannot_be_reset(monkeypatch):
    import resource

    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(device, "open", no_proc, raising=False)
    assert device.reset_peak_memory(CPU) is False
    assert device.peak_memory(CPU) == (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, None)
