"""Launch latency of a tiny kernel (an in-place add on one element), as SuperBench's kernel-launch measures it.

- host dispatch: the host clock over ``calls`` launches with no synchronisation, per launch:
  what one launch costs the CPU thread that issues it.
- device time: where the device table gives the type timing events (cuda, npu, mlu, musa, xpu), events
  recorded before and after the same number of launches, per launch: the device's clock, which the dispatch
  rate bounds when the kernel is tiny. Elsewhere, the host clock with the device synchronised before and after.
- round trip: one launch and a synchronisation, the median: what a step that waits on
  the device pays.
- graph replay (where the type captures graphs: CUDAGraph, NPUGraph...): ``graph_kernels`` of the same kernel
  captured in one graph and replayed; host and device time per kernel.

On the CPU the op runs inside the call: there is only the host's time, and no graph.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import torch

from workloads.catalogue import say
from workloads.child import device as dev
from workloads.errors import first_line
from workloads.microbench.timing import host_seconds

GRAPH_KERNELS = 100
ROUNDTRIPS = 50


def measure(device: torch.device, calls: int = 1000, replays: int = 20) -> dict[str, Any]:
    x = torch.zeros(1, device=device)
    if device.index is not None:
        dev.set_device(device)  # events record, and graphs capture, on the current device's stream

    def launch() -> None:
        x.add_(1.0)

    for _ in range(20):
        launch()
    dev.synchronize(device)
    out: dict[str, Any] = {"kernel": "in-place add on one fp32 element", "calls": calls}
    out["eager_host_us"] = host_seconds(launch, calls) * 1e6
    if device.type == "cpu":
        out["notes"] = say("workload.microbench.launch.cpu_note")
        return out
    dev.synchronize(device)
    out["eager_device_us"], out["device_clock"] = _device_us(launch, device, calls)
    out["roundtrips"] = ROUNDTRIPS
    out["roundtrip_us"] = statistics.median(_roundtrip(launch, device) for _ in range(ROUNDTRIPS)) * 1e6
    if dev.can_capture(device):
        out.update(_graph(launch, device, replays))
    else:
        out["graph_skipped"] = say("workload.microbench.launch.graph_not_cuda", device=device.type)
    return out


def _device_us(launch: Any, device: torch.device, calls: int) -> tuple[float, str]:
    events = dev.timing_events(device)
    if events is not None:
        start, end = events
        start.record()
        for _ in range(calls):
            launch()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e3 / calls, say("workload.microbench.launch.clock_events")
    begin = dev.now(device)
    for _ in range(calls):
        launch()
    return (dev.now(device) - begin) * 1e6 / calls, say("workload.microbench.launch.clock_host")


def _roundtrip(launch: Any, device: torch.device) -> float:
    start = time.perf_counter()
    launch()
    dev.synchronize(device)
    return time.perf_counter() - start


def _graph(launch: Any, device: torch.device, replays: int) -> dict[str, Any]:
    def kernels() -> None:
        for _ in range(GRAPH_KERNELS):
            launch()

    try:
        graph, _ = dev.capture_graph(device, kernels, warmups=1)
        graph.replay()
        dev.synchronize(device)
    except Exception as exc:  # noqa: BLE001 - a device or layer without graph capture: said, not fatal
        return {"graph_skipped": first_line(exc, typed=True, limit=200)}
    host = host_seconds(graph.replay, replays) / GRAPH_KERNELS
    dev.synchronize(device)
    device_us, _ = _device_us(graph.replay, device, replays)
    return {"graph_kernels": GRAPH_KERNELS, "graph_host_us": host * 1e6, "graph_device_us": device_us / GRAPH_KERNELS}
