"""Device memory bandwidth: copy, read-only reduction and write-only fill, on buffers far beyond the last cache.

The buffer is sized as the workload's own read-bandwidth probe sizes its tensor
(:func:`workloads.child.bandwidth.probe_bytes`: eight times the last-level cache, at
least 256 MiB on the CPU and 1 GiB on a device, at most a quarter of free memory), or
``max_bytes`` when smaller. Bytes counted per call, as STREAM and nccl-tests count them:

- copy: ``dst.copy_(src)``, the buffer read and written: 2 x its size.
- read: ``src.sum()``, the buffer read once (the probe's method, timed here as every part is).
- fill: ``dst.fill_(1)``, the buffer written once (a CPU that reads each line before
  writing it moves more than that: the figure counts what the program asked for).

GB/s is 10^9 bytes per second, as data sheets print it. The probe itself is run on the
same buffer size, so the result can say how far the read figure is from it.
"""

from __future__ import annotations

from typing import Any

import torch

from workloads.child import bandwidth
from workloads.microbench.timing import time_calls

KINDS = ("copy", "read", "fill")
BYTES_PER_CALL = {"copy": 2, "read": 1, "fill": 1}   # x the buffer's size


def buffer_bytes(device: torch.device, max_bytes: int | None) -> int:
    size = bandwidth.probe_bytes(device)
    return min(size, max_bytes) if max_bytes else size


def measure(device: torch.device, nbytes: int, repeats: int = 5) -> dict[str, Any]:
    """GB/s best and median per kind, the buffer's size, and the probe's read figure on the same size."""
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    nbytes = src.numel() * 4
    calls = {"copy": lambda: dst.copy_(src), "read": lambda: src.sum(), "fill": lambda: dst.fill_(1.0)}
    out: dict[str, Any] = {"buffer_bytes": nbytes, "kinds": {}}
    with torch.inference_mode():
        for kind in KINDS:
            timed = time_calls(calls[kind], device, repeats=repeats, warmup=1)
            moved = BYTES_PER_CALL[kind] * nbytes
            out["kinds"][kind] = {"best_gbps": moved / timed.best_s / 1e9, "median_gbps": moved / timed.median_s / 1e9,
                                  "bytes_per_call": moved}
    del src, dst
    probe = bandwidth.measure_read_bandwidth(device, nbytes=nbytes, repeats=repeats)
    out["probe_read_gbps"] = probe.best_gbps
    out["probe_method"] = probe.method
    read = out["kinds"]["read"]["best_gbps"]
    out["read_vs_probe"] = read / probe.best_gbps if probe.best_gbps else None
    return out
