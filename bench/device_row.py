"""Exercise one row of the device table (workloads/child/device_types.py) on the real device, through the calls every
workload makes (workloads.child.device), and print what each gave as one JSON object on stdout.

    python bench/device_row.py [--device auto|cuda|npu:0|cpu] [--mib 256]

Per call: the figure it read or "N/A: why". The peak memory is read against its bound: after a reset and one
tensor of ``--mib`` MiB, the peak must have grown by at least that tensor (a peak below it means the reset or the
reading is not the device's). A captured graph of ``x += 1`` replayed twice must leave x at 2. On the CPU there is
no graph and no event: said, not failed. Exit 0 when every check the type has passed, 1 otherwise, 2 for a bad
``--device`` (one line on stderr, as a workload says it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloads.errors import WorkloadError  # noqa: E402 - after the checkout is on the path


def _memory(dev: Any, torch: Any, device: Any, mib: int) -> dict[str, Any]:
    before = dev.memory_in_use(device)
    reset = dev.reset_peak_memory(device)
    block = torch.ones(mib * 2**20 // 4, device=device)
    dev.synchronize(device)
    peak, reserved = dev.peak_memory(device)
    grew = None if peak is None or before is None else peak - before
    del block
    dev.empty_cache(device)
    return {"reset_peak": reset, "in_use_before_bytes": before, "peak_bytes": peak, "peak_reserved_bytes": reserved,
            "peak_growth_bytes": grew, "bound_bytes": mib * 2**20,
            "peak_check": "N/A: no peak reading" if grew is None else grew >= mib * 2**20,
            "free_bytes": dev.free_bytes(device)}


def _graph(dev: Any, torch: Any, device: Any) -> dict[str, Any]:
    if not dev.can_capture(device):
        return {"graph": f"N/A: {device.type} captures no graph in the table"}
    x = torch.zeros(1, device=device)
    graph, _ = dev.capture_graph(device, lambda: x.add_(1.0), warmups=3)
    x.zero_()
    graph.replay()
    graph.replay()
    dev.synchronize(device)
    return {"graph": type(graph).__name__, "graph_check": float(x.item()) == 2.0}


def _events(dev: Any, torch: Any, device: Any) -> dict[str, Any]:
    events = dev.timing_events(device)
    if events is None:
        return {"events": f"N/A: {device.type} has no timing events in the table"}
    start, end = events
    a = torch.randn(1024, 1024, device=device)
    start.record()
    a @ a
    end.record()
    end.synchronize()
    elapsed = float(start.elapsed_time(end))
    return {"events_ms": elapsed, "events_check": elapsed > 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--mib", type=int, default=256)
    args = parser.parse_args(argv)
    import torch

    from workloads.child import device as dev  # imports torch

    try:
        device = dev.resolve(args.device)
    except WorkloadError as exc:
        print(f"device_row: {exc.message} ({exc.hint})", file=sys.stderr)
        return 2
    started = time.perf_counter()
    dev.synchronize(device)
    out: dict[str, Any] = {"device": dev.name(device), "type": device.type, "backend": dev.backend(device),
                           "autocast": dev.autocast_type(device),
                           "autocast_dtypes": [str(d).replace("torch.", "") for d in dev.autocast_dtypes(device)],
                           "capability": dev.capability(device), "tf32": dev.has_tf32(device),
                           "l2_bytes": getattr(dev.properties(device), "L2_cache_size", None)}
    out.update(_memory(dev, torch, device, args.mib))
    out.update(_graph(dev, torch, device))
    out.update(_events(dev, torch, device))
    out["seconds"] = round(time.perf_counter() - started, 3)
    print(json.dumps(out))
    return 0 if all(v is not False for k, v in out.items() if k.endswith("_check")) else 1


if __name__ == "__main__":
    sys.exit(main())
