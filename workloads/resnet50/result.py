"""The figures a ResNet-50 run ends with: images/s over the counted steps, peak memory, what to read them against."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Sequence

from workloads.child import device as devices
from workloads.child.harness import log
from workloads.child.train.precision import Precision
from workloads.facts.missing import NA
from workloads.resnet50 import baselines
from workloads.resnet50.setup import Setup
from workloads.resnet50.result_record import ResNet50Result


@dataclass
class StepRecord:
    images: int
    step_s: float
    compute_s: float
    data_wait_s: float
    loss: float
    counted: bool  # after the warm-up, and not a step that fell back


def counted_steps(records: Sequence[StepRecord]) -> tuple[list[StepRecord], bool]:
    """The steps the median counts and whether they are after the warm-up: all of them when every one was warm-up."""
    counted = [r for r in records if r.counted]
    return (counted, True) if counted else (list(records), False)


def median_rate(records: Sequence[StepRecord]) -> float | None:
    """Images/s of the median step: the run's headline figure when given the counted steps."""
    rates = [r.images / r.step_s for r in records if r.step_s > 0]
    return statistics.median(rates) if rates else None


def median_words(after_warmup: bool, n: int) -> str:
    """Which figure a median is: 'median after warm-up', or, when every step was warm-up, 'median of all 2 steps
    (all warm-up)', so a run shorter than its warm-up never claims one."""
    return "median after warm-up" if after_warmup else f"median of all {n} step{'s' if n != 1 else ''} (all warm-up)"


@dataclass(frozen=True)
class EpochSummary:
    """An epoch's figures, as the run log states them when it ends: the headline's figure over its steps."""

    epoch: int
    total_epochs: int
    steps: int
    steps_per_epoch: int
    counted: int
    after_warmup: bool
    images_per_s: float | None
    mean_loss: float

    @classmethod
    def of(cls, records: Sequence[StepRecord], epoch: int, total_epochs: int, steps_per_epoch: int) -> "EpochSummary":
        counted, after_warmup = counted_steps(records)
        return cls(epoch, total_epochs, len(records), steps_per_epoch, len(counted), after_warmup,
                   median_rate(counted), statistics.fmean(r.loss for r in records))

    def line(self, capped_at: int | None = None) -> str:
        """'epoch 1/1 ended early, after 6 of its 3200 steps (--steps 6): mean loss ..., median after warm-up ...'."""
        head = f"epoch {self.epoch}/{self.total_epochs}"
        if self.steps < self.steps_per_epoch:
            cap = f" (--steps {capped_at})" if capped_at else ""
            head += f" ended early, after {self.steps} of its {self.steps_per_epoch} steps{cap}"
        else:
            head += f" done, {self.steps} step{'s' if self.steps != 1 else ''}"
        left_out = self.steps - self.counted
        over = f"{self.counted} step{'s' if self.counted != 1 else ''}" + (f", {left_out} warm-up left out"
                                                                          if left_out else "")
        rate = f"{median_words(self.after_warmup, self.counted)} {num(self.images_per_s)} images/s"
        return f"{head}: mean loss {num(self.mean_loss)}, {rate}" + (f" ({over})" if self.after_warmup else "")


def report(setup: Setup, precision: Precision, records: list[StepRecord], loss_value: float, total_s: float,
           epoch: int, last_step: int, nonfinite_losses: int = 0,
           evaluation: dict[str, Any] | None = None, fallback_check: dict[str, Any] | None = None) -> dict[str, Any]:
    """The result metrics, emitted (by rank 0) and logged; ``total_s`` is the loop's time, the rest was set-up.

    ``evaluation``: the ``--val`` figures (top-1, top-5, by epoch), carried as they are; ``fallback_check``: the CPU
    fallback check's (`workloads.child.cpu_fallback`)."""
    args = setup.args
    counted, after_warmup = counted_steps(records)
    rates = [r.images / r.step_s for r in counted if r.step_s > 0]
    compute_rates = [r.images / r.compute_s for r in counted if r.compute_s > 0]
    waited = sum(r.data_wait_s for r in counted)
    spent = sum(r.step_s for r in counted)
    allocated, reserved = devices.peak_memory(setup.device)
    images_per_s = median_rate(counted)
    metrics: dict[str, Any] = {
        "images_per_s": images_per_s,
        "images_per_s_compute": statistics.median(compute_rates) if compute_rates else None,
        "images_per_s_min": min(rates) if rates else None,
        "images_per_s_max": max(rates) if rates else None,
        "data_wait_fraction": waited / spent if spent > 0 else None,
        "total_s": total_s,
        "setup_s": time.perf_counter() - setup.t_begin - total_s,
        "final_loss": loss_value if records else None,
        "nonfinite_loss_steps": nonfinite_losses,  # steps whose loss was NaN or infinite
        "precision": precision.label,
        "precision_requested": precision.requested,
        "peak_memory_bytes": allocated,
        "peak_memory_reserved_bytes": reserved,
        "batch_size": args.batch_size,
        "global_batch_size": args.batch_size * setup.world,
        "image_size": args.image_size,
        "steps": len(records),
        "steps_counted": len(counted),
        "warmup_steps": len(records) - len(counted),
        "last_step": last_step,
        "epochs": epoch,
        "num_classes": setup.num_classes,
        "data": setup.data.description,
        "skipped_files": setup.data.skipped.count,
        "skipped_examples": setup.data.skipped.examples(),
        "fallbacks": precision.fallbacks,
        "world_size": setup.world,
        "device": setup.device_name,
        "channels_last": bool(args.channels_last),
        "compiled": precision.compiled,
        # NVIDIA's figures are at 224 px: beside another size they would mislead
        "published_images_per_s": baselines.PUBLISHED_IMAGES_PER_S if args.image_size == 224 else None,
        **baselines.bounds(images_per_s, args.image_size, setup.device_name, precision.label, devices=setup.world),
        **(evaluation or {}),
        **(fallback_check or {}),
    }
    if setup.is_main:
        setup.emitter.result(ResNet50Result.of(metrics))
        skipped = f", {metrics['skipped_files']} files skipped" if metrics["skipped_files"] else ""
        fell = f", {len(precision.fallbacks)} fallback(s)" if precision.fallbacks else ""
        fell += f", loss NaN/inf in {nonfinite_losses} step(s)" if nonfinite_losses else ""
        fell += f", validation top-1 {metrics['val_top1']:.2%}" if metrics.get("val_top1") is not None else ""
        log(f"result: {median_words(after_warmup, len(counted))} {num(images_per_s)} images/s "
            f"(compute only {num(metrics['images_per_s_compute'])}), final loss {num(loss_value)}, "
            f"precision {precision.label}, {len(records)} steps in {total_s:.1f} s{skipped}{fell}")
    return metrics


def num(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) else NA
