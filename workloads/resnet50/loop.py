"""The timed step loop of a ResNet-50 run: epochs of steps, a ``step`` event each, checkpoints between epochs.

Timing: the device is synchronised once per step, right before the clock is
read, so a step's time is the device's (timm's benchmark and NVIDIA's examples
do the same). A step is split into data-wait (host time until the batch is in
hand) and compute (copy, forward, backward, optimiser). The loss is read once per
step, after that synchronisation. ``images_per_s`` is the median over the steps
after the warm-up, the one figure a run's headline is; an epoch's summary (and
its last step's ``epoch_images_per_s``) is the same median over that epoch's
steps. Counts are over what the run plans: ``--steps`` caps the steps, and the
epochs are those the cap lets it reach, so a 6-step run is step 6/6 of epoch
1/1, never step 6 of 3200 in epoch 1 of 3. Each step is one ``step`` event,
which the parent writes as the run log's one line for it; the child logs only
what is not a step (the plan, epoch summaries, checkpoints, the result).

A loss that turns NaN or infinite does not end the run: the step times, which
are what the run measures, still hold, and under fp16 the gradient scaler
meets an infinite loss now and then and skips that step by design. But it is
never silent: the first one is a ``nonfinite_loss`` warning, the result counts
them, and a checkpoint is not saved over the last good one while the weights
are not finite.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import torch

from workloads.child import device as devices
from workloads.child.cpu_fallback import FallbackWatch
from workloads.child.harness import WorkloadError, log
from workloads.child.train.memory import PeakMemory
from workloads.child.train.precision import Precision
from workloads.resnet50 import checkpoint
from workloads.resnet50.evaluate import Validation
from workloads.resnet50.options import UNIT
from workloads.resnet50.result import EpochSummary, StepRecord, report
from workloads.resnet50.setup import Setup


@dataclass(frozen=True)
class Plan:
    """The steps a run takes, counted over what it plans: ``--steps`` caps them, the epochs are those it reaches."""

    steps_per_epoch: int
    planned: int       # the steps this run takes
    capped: bool       # --steps cut the epochs asked for short
    total_steps: int   # the global step it ends at (a resumed run goes on from the checkpoint's)
    total_epochs: int  # the epoch it ends in


def plan_of(args: Any, start_step: int, start_epoch: int, steps_per_epoch: int) -> Plan:
    planned = max(0, args.epochs - start_epoch + 1) * steps_per_epoch
    capped = args.steps is not None and args.steps < planned
    if capped:
        planned = args.steps
    total_epochs = start_epoch - 1 + -(-planned // max(1, steps_per_epoch))  # the epochs the cap lets it reach
    return Plan(steps_per_epoch, planned, capped, start_step + planned, total_epochs)


class Training:
    """The training run on a :class:`~workloads.resnet50.setup.Setup`: build, start, step, checkpoint, result."""

    def __init__(self, setup: Setup):
        self.setup = setup
        self.args = setup.args

    def run(self) -> dict[str, Any]:
        s, dev = self.setup, self.setup.device
        s.build()
        self.precision = Precision(s)
        self.global_step = s.start_step
        self.plan = plan_of(self.args, s.start_step, s.start_epoch, s.data.steps_per_epoch)
        self.validation = Validation(s, self.args.val) if self.args.val is not None else None
        self._start()
        devices.reset_peak_memory(dev)
        self.memory = PeakMemory(dev)
        self.nonfinite_losses = 0
        self.records: list[StepRecord] = []
        # the CPU fallback check profiles the steps right after the warm-up: they are left out as warm-up is
        self.watch = FallbackWatch(dev, s.emitter if s.is_main else None, self.args.cpu_fallback_check,
                                   after=self.args.warmup, planned=self.plan.planned)
        self.counted_from = self.watch.last if self.watch.active else self.args.warmup  # records[i] counts from here
        self.run_steps = 0
        self.loss_value = float("nan")
        epoch = s.start_epoch - 1
        t_start = self.t_prev = devices.now(dev)
        evaluated_s = 0.0
        while self.run_steps < self.plan.planned:
            epoch += 1
            evaluated_s += self._epoch(epoch)
        total_s = devices.now(dev) - t_start - evaluated_s
        self.watch.finish()   # where the run ended inside the watched steps
        return report(s, self.precision, self.records, self.loss_value, total_s, epoch, self.global_step,
                      nonfinite_losses=self.nonfinite_losses,
                      evaluation=self.validation.metrics() if self.validation is not None else None,
                      fallback_check=self.watch.figures())

    def _start(self) -> None:
        """The start event, the plan logged, and a warning for what the data or the checkpoint leave out."""
        s, args, plan, data = self.setup, self.args, self.plan, self.setup.data
        s.start(self.precision.requested, steps_per_epoch=plan.steps_per_epoch, start_epoch=s.start_epoch,
                total_steps=plan.total_steps, total_epochs=plan.total_epochs)
        if s.is_main:
            log(f"data: {data.description}; {plan.steps_per_epoch} steps per epoch; "
                + _plan_words(plan.planned, s.start_epoch, plan.total_epochs, args.epochs,
                              args.steps if plan.capped else None))
        if data.skipped.not_images and s.is_main:
            examples = ", ".join(data.skipped.not_images[:3])
            s.emitter.warning(f"skipping {len(data.skipped.not_images)} non-image files in {args.data} "
                              f"(e.g. {examples})", code="skipped_files")
        if plan.planned == 0 and s.resumed is not None:
            s.emitter.warning(f"the checkpoint already holds epoch {s.start_epoch - 1} of {args.epochs}: "
                              "nothing to train", code="nothing_to_train")

    def _epoch(self, epoch: int) -> float:
        """One epoch's steps, then its evaluation and checkpoint; the seconds evaluating took (not training time)."""
        s, args, dev = self.setup, self.args, self.setup.device
        step_in_epoch, completed = self._steps_of(epoch)
        if step_in_epoch == 0:
            raise WorkloadError(f"no readable images in {s.data.description}: "
                                f"{s.data.skipped.count} files skipped", hint="check the files decode")
        evaluated_s = 0.0
        if self.validation is not None:
            evaluated_s = self._validate(epoch)
            self.t_prev = devices.now(dev)  # evaluating is not training time
        if completed and args.checkpoint:
            self._save(epoch)
            self.t_prev = devices.now(dev)  # saving is not training time
        elif args.checkpoint and s.is_main:
            log(f"no checkpoint for epoch {epoch}: it stopped at step {step_in_epoch} of {self.plan.steps_per_epoch}")
        return evaluated_s

    def _steps_of(self, epoch: int) -> tuple[int, bool]:
        """The steps of ``epoch`` the plan leaves: (how many ran, whether the epoch ran to its end)."""
        epoch_first = len(self.records)  # this epoch's steps are records[epoch_first:]
        step_in_epoch = 0
        for images, labels, bad in self.setup.data.epoch(epoch):
            if bad:
                self._skipped(bad)
            if images is None:
                continue
            step_in_epoch += 1
            self._step(images, labels, epoch, step_in_epoch, epoch_first)
            if self.run_steps >= self.plan.planned:
                return step_in_epoch, step_in_epoch >= self.plan.steps_per_epoch
        return step_in_epoch, True

    def _step(self, images: Any, labels: Any, epoch: int, step_in_epoch: int, epoch_first: int) -> None:
        """One timed step: the batch copied to the device, the step run, its record kept and its event sent."""
        s, dev = self.setup, self.setup.device
        t_data = time.perf_counter()
        self.watch.before(self.run_steps + 1)
        images = images.to(dev, non_blocking=True, memory_format=s.memory_format)
        labels = labels.to(dev, non_blocking=True)
        loss, fell_back = self.precision.train_step(images, labels, self.global_step + 1)
        t_end = devices.now(dev)
        checked = self.watch.after(self.run_steps + 1)
        self.loss_value = loss.item()
        self.run_steps += 1
        self.global_step += 1
        if not math.isfinite(self.loss_value):
            self._nonfinite_loss(self.loss_value, epoch)
        if fell_back:
            self.counted_from = len(self.records) + 1 + self.args.warmup
        record = StepRecord(int(images.shape[0]) * s.world, t_end - self.t_prev, t_end - t_data,
                            t_data - self.t_prev, self.loss_value, counted=len(self.records) >= self.counted_from)
        self.records.append(record)
        end_of_epoch = step_in_epoch == self.plan.steps_per_epoch or self.run_steps == self.plan.planned
        if s.is_main:
            self._emit_step(record, t_end, epoch, fell_back, self.records[epoch_first:] if end_of_epoch else None)
        self.t_prev = devices.now(dev) if checked else t_end   # reading the fallback check's trace is no step's time

    def _emit_step(self, record: StepRecord, t_end: float, epoch: int, fell_back: bool,
                   epoch_records: list[StepRecord] | None) -> None:
        """The step event (rank 0); at the end of an epoch (``epoch_records``: its steps) its summary beside it."""
        s, plan = self.setup, self.plan
        extra: dict[str, Any] = {}
        if len(self.records) <= self.counted_from:
            extra["warmup"] = True
        if fell_back:
            extra["fallback"] = True
        summary = None
        if epoch_records is not None:
            summary = EpochSummary.of(epoch_records, epoch, plan.total_epochs, plan.steps_per_epoch)
            extra["epoch_images_per_s"] = summary.images_per_s
            extra["epoch_loss"] = summary.mean_loss
        allocated, reserved = self.memory.at(t_end, force=summary is not None)
        step_s = record.step_s
        s.emitter.step(self.global_step, epoch=epoch, loss=record.loss,
                       throughput=record.images / step_s if step_s > 0 else None, unit=UNIT,
                       step_s=step_s, data_wait_s=record.data_wait_s, compute_s=record.compute_s,
                       memory_allocated_bytes=allocated, memory_reserved_bytes=reserved,
                       total_steps=plan.total_steps, total_epochs=plan.total_epochs, **extra)
        if summary is not None:
            log(summary.line(capped_at=self.args.steps if plan.capped else None))

    def _validate(self, epoch: int) -> float:
        """Score the weights on ``--val`` (rank 0; the others wait): the seconds it took, left out of training."""
        s = self.setup
        t0 = devices.now(s.device)
        if s.is_main:
            self.validation.run(s.model, epoch, self.precision.amp_dtype)
        if s.distributed:
            import torch.distributed as dist

            dist.barrier()
        return devices.now(s.device) - t0

    def _nonfinite_loss(self, loss: float, epoch: int) -> None:
        self.nonfinite_losses += 1
        if self.nonfinite_losses == 1 and self.setup.is_main:
            self.setup.emitter.warning(
                f"the loss is {loss} at step {self.global_step} (epoch {epoch}, learning rate {self.setup.lr:g}): "
                "training diverged; the images/s figures still hold, the weights do not "
                "(try a lower --lr, or --amp off)", code="nonfinite_loss", step=self.global_step)

    def _skipped(self, indices: list[int]) -> None:
        new = self.setup.data.note_skipped(indices)
        if new and self.setup.is_main:
            self.setup.emitter.warning(f"skipping unreadable image{'s' if len(new) > 1 else ''}: "
                                       f"{', '.join(new[:3])}", code="skipped_files")

    def _save(self, epoch: int) -> None:
        s = self.setup
        if s.is_main and not _finite(s.model):
            s.emitter.warning(f"no checkpoint for epoch {epoch}: the weights are NaN or infinite; "
                              f"{checkpoint.path_in(self.args.checkpoint)} is left as it was",
                              code="checkpoint_not_saved")
        elif s.is_main:
            state = {"model": s.model.state_dict(), "optimizer": s.optimizer.state_dict(),
                     "scaler": s.scaler.state_dict() if self.precision.scaler_on else None, "epoch": epoch,
                     "step": self.global_step, "num_classes": s.num_classes, "precision": self.precision.label,
                     "image_size": self.args.image_size}
            path = checkpoint.save(self.args.checkpoint, state)
            log(f"checkpoint saved: {path} (epoch {epoch}, step {self.global_step})")
        if s.distributed:
            import torch.distributed as dist

            dist.barrier()


def _plan_words(planned: int, first: int, last: int, asked: int, cap: int | None) -> str:
    """'6 steps planned in epoch 1 (--steps 6 caps the 3 epochs asked for)'."""
    if planned == 0:
        return "no steps planned"
    epochs = f"epoch {first}" if last == first else f"epochs {first}-{last}"
    capped = f" (--steps {cap} caps the {asked} epoch{'s' if asked > 1 else ''} asked for)" if cap else ""
    return f"{planned} step{'s' if planned > 1 else ''} planned in {epochs}{capped}"


def _finite(model: Any) -> bool:
    """Whether every parameter and buffer is finite (one device sync)."""
    tensors = [t for t in (*model.parameters(), *model.buffers()) if t.is_floating_point()]
    return bool(torch.stack([t.isfinite().all() for t in tensors]).all()) if tensors else True
