"""Run directories and bundles for the compare tests: chosen per-step rates and settings, no torch."""

from __future__ import annotations

import statistics
from pathlib import Path

from report_runs import T0
from tui.runs import RunStore
from workloads import protocol

WARMUP = 2


def resnet_like(store: RunStore, rates, *, image_size=224, batch_size=32, amp="bf16", device="Fake GPU 80GB",
                extra=None) -> Path:
    """A finished resnet50 run: ``WARMUP`` warm-up steps, then one step per rate; its headline the median."""
    run = store.create("resnet50", ["--batch-size", str(batch_size), "--image-size", str(image_size)])
    run.append(protocol.Start(t=T0, workload="resnet50", device=device,
                              config={"batch_size": batch_size, "image_size": image_size, "amp": amp,
                                      "epoch_size": 12800, "data": None, "world_size": 1},
                              versions={"torch": "2.14.1"}))
    steps = [10.0] * WARMUP + list(rates)  # warm-up steps are slow and left out
    for i, rate in enumerate(steps, start=1):
        run.append(protocol.Step(t=T0 + i, step=i, epoch=1, loss=1.0, throughput=rate, unit="images/s",
                                 step_s=batch_size / rate))
    precision = "fp32" if amp == "off" else amp
    run.append(protocol.Result(t=T0 + len(steps) + 1, metrics={
        "images_per_s": statistics.median(rates), "precision": precision, "batch_size": batch_size,
        "image_size": image_size, "steps": len(steps), "warmup_steps": WARMUP, "world_size": 1, **(extra or {})}))
    run.append(protocol.End(t=T0 + len(steps) + 2, status="ok", exit_code=0))
    run.close()
    return run.path
