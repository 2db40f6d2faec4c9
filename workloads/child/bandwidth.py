"""The device's read bandwidth, measured with a large-tensor reduction on the device itself.

Batch-1 decoding reads every weight once per token, so this number is its
physical bound. The tensor is several times the last-level cache (the CPU's L3,
the GPU's L2) so the reduction streams from memory, and the best of several
repeats is kept: the bound is what the memory can do, not what it did while
another process was busy. The median is kept beside it to show the spread.
"""

from __future__ import annotations

import glob
import os
import statistics
from dataclasses import dataclass

import torch

from workloads.child import device as dev

MIN_CPU_BYTES = 256 * 2**20
MIN_DEVICE_BYTES = 1024 * 2**20
CACHE_MULTIPLE = 8


@dataclass(frozen=True)
class ReadBandwidth:
    best_gbps: float
    median_gbps: float
    nbytes: int
    repeats: int
    method: str


def last_level_cache_bytes(device: torch.device) -> int | None:
    """The size of the largest cache in front of the device's memory, or None when unknown."""
    if device.type == "cuda":
        try:
            return int(torch.cuda.get_device_properties(device).L2_cache_size)
        except Exception:  # noqa: BLE001 - a compatibility layer may not report it
            return None
    if device.type != "cpu":
        return None
    sizes = []
    for path in glob.glob("/sys/devices/system/cpu/cpu*/cache/index*/size"):
        try:
            sizes.append(_parse_size(open(path).read()))
        except (OSError, ValueError):
            continue
    return max(sizes) if sizes else None


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def _available_bytes(device: torch.device) -> int | None:
    try:
        if device.type == "cuda":
            return int(torch.cuda.mem_get_info(device)[0])
        if device.type == "cpu":
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except Exception:  # noqa: BLE001
        return None
    return None


def probe_bytes(device: torch.device) -> int:
    """How large the reduction's tensor should be on this device."""
    llc = last_level_cache_bytes(device) or 0
    floor = MIN_CPU_BYTES if device.type == "cpu" else MIN_DEVICE_BYTES
    size = max(floor, CACHE_MULTIPLE * llc)
    available = _available_bytes(device)
    if available:
        size = min(size, available // 4)
    return max(size, 16 * 2**20)


def measure_read_bandwidth(device: torch.device, nbytes: int | None = None, repeats: int = 10,
                           warmup: int = 2) -> ReadBandwidth:
    """Read bandwidth in GB/s (10^9 bytes per second) from ``repeats`` timed sums of an fp32 tensor."""
    nbytes = nbytes or probe_bytes(device)
    x = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    nbytes = x.numel() * 4
    rates = []
    with torch.inference_mode():
        for i in range(warmup + repeats):
            start = dev.now(device)
            x.sum()
            elapsed = dev.now(device) - start
            if i >= warmup and elapsed > 0:
                rates.append(nbytes / elapsed / 1e9)
    del x
    method = f"sum of a {nbytes / 2**20:.0f} MiB fp32 tensor, best of {len(rates)}"
    return ReadBandwidth(best_gbps=max(rates), median_gbps=statistics.median(rates), nbytes=nbytes,
                         repeats=len(rates), method=method)
