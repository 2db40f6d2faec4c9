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
from typing import Any

import torch

from workloads.child import device as devices
from workloads.child.harness import WorkloadError, log
from workloads.resnet50 import checkpoint
from workloads.resnet50.evaluate import Validation
from workloads.resnet50.options import UNIT
from workloads.resnet50.precision import Precision
from workloads.resnet50.result import EpochSummary, StepRecord, report
from workloads.resnet50.setup import Setup

# the peak-memory counters build a dict of every allocator statistic per read: at most once a second
MEMORY_EVERY_S = 1.0


class Training:
    """The training run on a :class:`~workloads.resnet50.setup.Setup`: build, start, step, checkpoint, result."""

    def __init__(self, setup: Setup):
        self.setup = setup
        self.args = setup.args

    def run(self) -> dict[str, Any]:
        s, args, dev = self.setup, self.args, self.setup.device
        s.build()
        self.precision = precision = Precision(s)
        self.global_step = s.start_step
        data = s.data
        steps_per_epoch = data.steps_per_epoch
        epochs_left = max(0, args.epochs - s.start_epoch + 1)
        planned = epochs_left * steps_per_epoch
        capped = args.steps is not None and args.steps < planned
        if capped:
            planned = args.steps
        total_steps = self.global_step + planned
        total_epochs = s.start_epoch - 1 + -(-planned // max(1, steps_per_epoch))  # the epochs the cap lets it reach
        self.validation = Validation(s, args.val) if args.val is not None else None
        s.start(precision.requested, steps_per_epoch=steps_per_epoch, start_epoch=s.start_epoch,
                total_steps=total_steps, total_epochs=total_epochs)
        if s.is_main:
            log(f"data: {data.description}; {steps_per_epoch} steps per epoch; "
                + _plan_words(planned, s.start_epoch, total_epochs, args.epochs, args.steps if capped else None))
        if data.skipped.not_images and s.is_main:
            examples = ", ".join(data.skipped.not_images[:3])
            s.emitter.warning(f"skipping {len(data.skipped.not_images)} non-image files in {args.data} "
                              f"(e.g. {examples})", code="skipped_files")
        if planned == 0 and s.resumed is not None:
            s.emitter.warning(f"the checkpoint already holds epoch {s.start_epoch - 1} of {args.epochs}: "
                              "nothing to train", code="nothing_to_train")
        devices.reset_peak_memory(dev)
        self.nonfinite_losses = 0
        records: list[StepRecord] = []
        counted_from = args.warmup  # index into records of the first step the median counts
        run_steps = 0
        epoch = s.start_epoch - 1
        loss_value = float("nan")
        t_start = t_prev = devices.now(dev)
        memory_read_at = float("-inf")
        evaluated_s = 0.0
        allocated = reserved = None
        while run_steps < planned:
            epoch += 1
            epoch_first = len(records)  # this epoch's steps are records[epoch_first:]
            step_in_epoch = 0
            completed = True
            for images, labels, bad in data.epoch(epoch):
                if bad:
                    self._skipped(bad)
                if images is None:
                    continue
                t_data = time.perf_counter()
                images = images.to(dev, non_blocking=True, memory_format=s.memory_format)
                labels = labels.to(dev, non_blocking=True)
                loss, fell_back = precision.train_step(images, labels, self.global_step + 1)
                t_end = devices.now(dev)
                loss_value = loss.item()
                run_steps += 1
                step_in_epoch += 1
                self.global_step += 1
                if not math.isfinite(loss_value):
                    self._nonfinite_loss(loss_value, epoch)
                n = int(images.shape[0]) * s.world
                step_s = t_end - t_prev
                if fell_back:
                    counted_from = len(records) + 1 + args.warmup
                records.append(StepRecord(n, step_s, t_end - t_data, t_data - t_prev, loss_value,
                                          counted=len(records) >= counted_from))
                end_of_epoch = step_in_epoch == steps_per_epoch or run_steps == planned
                if s.is_main:
                    extra: dict[str, Any] = {}
                    if len(records) <= counted_from:
                        extra["warmup"] = True
                    if fell_back:
                        extra["fallback"] = True
                    if end_of_epoch:
                        summary = EpochSummary.of(records[epoch_first:], epoch, total_epochs, steps_per_epoch)
                        extra["epoch_images_per_s"] = summary.images_per_s
                        extra["epoch_loss"] = summary.mean_loss
                    if end_of_epoch or t_end - memory_read_at >= MEMORY_EVERY_S:
                        allocated, reserved = devices.peak_memory(dev)
                        memory_read_at = t_end
                    s.emitter.step(self.global_step, epoch=epoch, loss=loss_value,
                                   throughput=n / step_s if step_s > 0 else None, unit=UNIT,
                                   step_s=step_s, data_wait_s=t_data - t_prev, compute_s=t_end - t_data,
                                   memory_allocated_bytes=allocated, memory_reserved_bytes=reserved,
                                   total_steps=total_steps, total_epochs=total_epochs, **extra)
                    if end_of_epoch:
                        log(summary.line(capped_at=args.steps if capped else None))
                t_prev = t_end
                if run_steps >= planned:
                    completed = step_in_epoch >= steps_per_epoch
                    break
            if step_in_epoch == 0:
                raise WorkloadError(f"no readable images in {data.description}: "
                                    f"{data.skipped.count} files skipped", hint="check the files decode")
            if self.validation is not None:
                evaluated_s += self._validate(epoch)
                t_prev = devices.now(dev)  # evaluating is not training time
            if completed and args.checkpoint:
                self._save(epoch)
                t_prev = devices.now(dev)  # saving is not training time
            elif args.checkpoint and s.is_main:
                log(f"no checkpoint for epoch {epoch}: it stopped at step {step_in_epoch} of {steps_per_epoch}")
        total_s = devices.now(dev) - t_start - evaluated_s
        return report(s, precision, records, loss_value, total_s, epoch, self.global_step,
                      nonfinite_losses=self.nonfinite_losses,
                      evaluation=self.validation.metrics() if self.validation is not None else None)

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
