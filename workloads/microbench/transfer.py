"""Host <-> device copies: pageable and pinned host memory, both directions, over a sweep of sizes.

A pageable copy goes through a driver staging buffer; a pinned one is a DMA straight
from the page-locked buffer, the figure the PCIe link bounds. Each size is timed
like every part (:mod:`~workloads.microbench.timing`), in GB/s (10^9 bytes per
second); the figure quoted for each mode and direction is its best over the sweep,
which the largest sizes set. There is no host link to measure on the CPU.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from workloads.microbench.timing import time_calls

MODES = ("pageable", "pinned")
DIRECTIONS = ("h2d", "d2h")
MIN_BYTES = 64 * 2**10


def sizes(max_bytes: int) -> list[int]:
    """64 KiB, then x4 up to ``max_bytes`` (which is always the last)."""
    out, size = [], MIN_BYTES
    while size < max_bytes:
        out.append(size)
        size *= 4
    return out + [max_bytes]


def sweep(device: torch.device, max_bytes: int, on_point: Callable[[dict[str, Any]], None] | None = None,
          repeats: int = 5) -> list[dict[str, Any]]:
    """One point per size x mode x direction: bytes, best and median GB/s."""
    points = []
    for nbytes in sizes(max_bytes):
        on_device = torch.empty(nbytes, dtype=torch.uint8, device=device)
        for mode in MODES:
            # written, so pageable pages are real: never-written pages all map the zero page and read from cache
            host = torch.ones(nbytes, dtype=torch.uint8, pin_memory=mode == "pinned")
            calls = {"h2d": lambda: on_device.copy_(host), "d2h": lambda: host.copy_(on_device)}
            for direction in DIRECTIONS:
                timed = time_calls(calls[direction], device, repeats=repeats, warmup=1)
                point = {"bytes": nbytes, "mode": mode, "direction": direction,
                         "best_gbps": nbytes / timed.best_s / 1e9, "median_gbps": nbytes / timed.median_s / 1e9}
                points.append(point)
                if on_point:
                    on_point(point)
            del host
        del on_device
    return points


def best(points: list[dict[str, Any]], mode: str, direction: str) -> dict[str, Any] | None:
    """The point of the sweep with the highest figure for this mode and direction."""
    mine = [p for p in points if p["mode"] == mode and p["direction"] == direction]
    return max(mine, key=lambda p: p["best_gbps"]) if mine else None
