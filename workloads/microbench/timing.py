"""How every microbenchmark times a call on the device: warm-up, batches long enough to read, best and median.

One call of a small kernel is shorter than the clock's resolution and the cost of
synchronising, so calls are timed in batches of ``k`` (chosen from a first call so a
batch lasts at least ``min_batch_s``) with the device synchronised before and after
each batch. The per-call time of each batch is kept: the best is what the device can
do, the median what it did while others shared the host.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import torch

from workloads.child import device as dev


@dataclass(frozen=True)
class Timed:
    seconds: tuple[float, ...]     # per call, one per timed batch
    calls_per_batch: int

    @property
    def best_s(self) -> float:
        return min(self.seconds)

    @property
    def median_s(self) -> float:
        return statistics.median(self.seconds)


def min_batch_s(device: torch.device) -> float:
    # a CPU clock read costs nothing, a device synchronisation some microseconds: 20 ms batches hide it
    return 0.02 if device.type != "cpu" else 0.01


def time_calls(fn: Callable[[], object], device: torch.device, *, repeats: int = 5, warmup: int = 2,
               min_batch: float | None = None) -> Timed:
    """Per-call seconds of ``fn`` over ``repeats`` batches, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    start = dev.now(device)
    fn()
    first = dev.now(device) - start
    k = max(1, math.ceil((min_batch if min_batch is not None else min_batch_s(device)) / max(first, 1e-9)))
    seconds = []
    for _ in range(repeats):
        start = dev.now(device)
        for _ in range(k):
            fn()
        seconds.append((dev.now(device) - start) / k)
    return Timed(tuple(seconds), k)


def host_seconds(fn: Callable[[], object], calls: int) -> float:
    """Host time per call of ``fn`` with no synchronisation: what dispatching it costs the CPU."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls
