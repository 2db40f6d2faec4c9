"""The device's read bandwidth, measured with a large-tensor reduction on the device itself.

Batch-1 decoding reads every weight once per token, so this number is its
physical bound. The tensor is several times the last-level cache (the CPU's L3,
the GPU's L2) so the reduction streams from memory, and the best of several
repeats is kept: the bound is what the memory can do, not what it did while
another process was busy. The median is kept beside it to show the spread.
A caller that measures in several rounds (before and after its own work, so one
busy moment cannot set the bound) keeps the best of them with :func:`best_of`.
"""

from __future__ import annotations

import glob
import statistics
from dataclasses import dataclass
from typing import Sequence

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
    rates: tuple[float, ...] = ()        # every timed sum, GB/s
    round_bests: tuple[float, ...] = ()  # the best of each round of measurement, in order


def last_level_cache_bytes(device: torch.device) -> int | None:
    """The size of the largest cache in front of the device's memory, or None when unknown."""
    if device.type != "cpu":
        size = getattr(dev.properties(device), "L2_cache_size", None)   # a compatibility layer may not report it
        return int(size) if size else None
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


def probe_bytes(device: torch.device) -> int:
    """How large the reduction's tensor should be on this device."""
    llc = last_level_cache_bytes(device) or 0
    floor = MIN_CPU_BYTES if device.type == "cpu" else MIN_DEVICE_BYTES
    size = max(floor, CACHE_MULTIPLE * llc)
    available = dev.free_bytes(device)
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
    dev.empty_cache(device)  # the probe's block must not stay reserved beside the workload's memory
    return ReadBandwidth(best_gbps=max(rates), median_gbps=statistics.median(rates), nbytes=nbytes,
                         repeats=len(rates), method=_method(nbytes, len(rates), 1), rates=tuple(rates),
                         round_bests=(max(rates),))


def best_of(reads: Sequence[ReadBandwidth]) -> ReadBandwidth:
    """Rounds of measurement as one: the best of them all, the median of all their sums, each round's best."""
    top = max(reads, key=lambda r: r.best_gbps)
    rates = tuple(rate for r in reads for rate in r.rates)
    bests = tuple(best for r in reads for best in (r.round_bests or (r.best_gbps,)))
    repeats = sum(r.repeats for r in reads)
    median = statistics.median(rates) if rates else statistics.median(r.median_gbps for r in reads)
    return ReadBandwidth(best_gbps=top.best_gbps, median_gbps=median, nbytes=top.nbytes, repeats=repeats,
                         method=_method(top.nbytes, repeats, len(bests)), rates=rates, round_bests=bests)


def _method(nbytes: int, repeats: int, rounds: int) -> str:
    over = f" over {rounds} rounds" if rounds > 1 else ""
    return f"sum of a {nbytes / 2**20:.0f} MiB fp32 tensor, best of {repeats}{over}"
