"""``--find-batch-size``: a timed step at each batch the search tries (:mod:`workloads.child.train.batch_search`,
doubling then bisecting), and the largest that fits reported with its images/s. Each try is one ``step`` event
(``fits`` true or false); the ``result`` names the batch to rerun with."""

from __future__ import annotations

import gc
from typing import Any

import torch

from workloads.child import device as devices
from workloads.child.harness import WorkloadError, log
from workloads.child.train import batch_search, oom
from workloads.child.train.precision import Precision
from workloads.errors import first_line
from workloads.resnet50.options import UNIT
from workloads.resnet50.setup import Setup
from workloads.resnet50.result_record import ResNet50Result


class BatchTrials:
    """:meth:`fits` for the search: a warm-up step and a timed one on a synthetic batch; out of memory is False."""

    def __init__(self, setup: Setup, precision: Precision):
        self.setup, self.precision = setup, precision
        self.rates: dict[int, float] = {}   # images/s of each batch that fitted
        self.trial = 0

    def fits(self, batch: int) -> bool:
        s, size = self.setup, self.setup.args.image_size
        self.trial += 1
        images = labels = None
        try:
            images = torch.randn(batch, 3, size, size, device=s.device).contiguous(memory_format=s.memory_format)
            labels = torch.randint(0, s.num_classes, (batch,), device=s.device)
            self._timed(batch, images, labels)
            return True
        except RuntimeError as exc:
            if not oom.is_out_of_memory(exc):
                raise
            log(f"batch {batch}: out of memory ({first_line(exc, limit=120)})")
            s.emitter.step(self.trial, batch_size=batch, fits=False)
            return False
        finally:
            del images, labels
            self._release()

    def _timed(self, batch: int, images: Any, labels: Any) -> None:
        s, dev, step = self.setup, self.setup.device, self.setup.start_step + 1
        self.precision.train_step(images, labels, step)  # warm-up: allocator and kernel choice settle
        t0 = devices.now(dev)
        loss, _ = self.precision.train_step(images, labels, step)
        t1 = devices.now(dev)
        self.rates[batch] = batch / (t1 - t0)
        allocated, reserved = devices.peak_memory(dev)
        s.emitter.step(self.trial, loss=loss.item(), throughput=self.rates[batch], unit=UNIT, step_s=t1 - t0,
                       memory_allocated_bytes=allocated, memory_reserved_bytes=reserved, batch_size=batch, fits=True)
        log(f"batch {batch}: fits, {self.rates[batch]:.1f} images/s")

    def _release(self) -> None:
        """What a try held given back before the next: gradients, garbage, the allocator's cache."""
        dev = self.setup.device
        self.setup.optimizer.zero_grad(set_to_none=True)
        gc.collect()
        devices.empty_cache(dev)


def find_batch_size(setup: Setup) -> dict[str, Any]:
    """Time one step at each batch the search tries, report the largest that fits."""
    args = setup.args
    setup.build(synthetic_only=True)
    precision = Precision(setup)
    setup.start(precision.requested)
    cap = args.max_batch_size or (64 if setup.device.type == "cpu" else 4096)
    trials = BatchTrials(setup, precision)
    # training-mode batch norm needs two images when the last stage is 1x1 (32 px)
    found = batch_search.search(trials.fits, start=2 if args.image_size <= 32 else 1, cap=cap)
    if found.largest is None:
        raise WorkloadError(f"even a batch of {found.smallest_failing} runs out of memory at {args.image_size} px",
                            hint="lower --image-size, or free the device (see `cardbench doctor`)",
                            bad_input=False)
    metrics = _result(setup, precision, found, cap, trials.rates)
    setup.emitter.result(ResNet50Result.of(metrics))
    bound = f"reached the cap {cap}" if found.capped else f"{found.smallest_failing} ran out of memory"
    log(f"largest batch that fits: {found.largest} ({bound}); rerun with --batch-size {found.largest}")
    return metrics


def _result(setup: Setup, precision: Precision, found: batch_search.SearchResult, cap: int,
            rates: dict[int, float]) -> dict[str, Any]:
    allocated, reserved = devices.peak_memory(setup.device)
    return {
        "max_batch_size": found.largest,
        "smallest_failing_batch_size": found.smallest_failing,
        "capped": found.capped,
        "max_batch_size_cap": cap,
        "images_per_s": rates.get(found.largest),
        "tried": [{"batch_size": b, "fits": ok, "images_per_s": rates.get(b) if ok else None}
                  for b, ok in found.tried],
        "precision": precision.label,
        "image_size": setup.args.image_size,
        "peak_memory_bytes": allocated,
        "peak_memory_reserved_bytes": reserved,
        "fallbacks": precision.fallbacks,
        "device": setup.device_name,
    }
