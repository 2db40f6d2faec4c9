"""ResNet-50 training: images/s, loss, memory, and a mixed-precision fallback that names the failing layer.

Run as ``python -m workloads.resnet50 [options]`` (or ``cardbench run resnet50``).
Events go to stdout through :class:`workloads.child.harness.Emitter`; concise progress
lines go to stderr, which the runner keeps as run.log.

Timing: the device is synchronised once per step, right before the clock is
read, so a step's time is the device's (timm's benchmark and NVIDIA's examples
do the same). A step is split into data-wait (host time until the batch is in
hand) and compute (copy, forward, backward, optimiser). The loss is read once per
step, after that synchronisation. ``images_per_s`` is the median over the steps
after the warm-up.

When a step under autocast raises a device error, the run diagnoses it (see
:mod:`workloads.resnet50.amp_diagnosis`), emits a ``fallback`` event naming the first
failing layer and its type, and carries on with autocast off for the failing
module types where that works, else in FP32.

Environment variables for testing without the hardware that fails:
``CARDBENCH_INJECT_AMP_FAILURE=layer1.0.conv2`` (module names or class names,
comma-separated) makes those modules raise a device error under autocast;
``CARDBENCH_INJECT_OOM_BATCH=N`` makes any step with more than N images raise
out-of-memory.
"""

from __future__ import annotations

import contextlib
import gc
import os
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

from workloads.child import data_parallel
from workloads.child.harness import (ArgumentParser, Emitter, WorkloadError, non_negative_int, positive_float, positive_int,
                               run_main)

WORKLOAD = "resnet50"
UNIT = "images/s"
OOM_INJECT_ENV = "CARDBENCH_INJECT_OOM_BATCH"
LOG_EVERY_S = 5.0
DEFAULT_EPOCH_SIZE = 12800  # 100 steps of the default batch
# the peak-memory counters build a dict of every allocator statistic per read: at most once a second
MEMORY_EVERY_S = 1.0


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog="resnet50", description="Train torchvision's ResNet-50 and report images/s.")
    p.add_argument("--epochs", type=positive_int, default=3)
    p.add_argument("--steps", type=positive_int, default=None, help="stop after this many steps (this run)")
    p.add_argument("--batch-size", type=positive_int, default=128, help="images per step per process")
    p.add_argument("--image-size", type=positive_int, default=224)
    p.add_argument("--amp", choices=("off", "fp16", "bf16"), default="off",
                   help="autocast precision; fp16 uses a gradient scaler")
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (falls back to eager on failure)")
    p.add_argument("--device", default="auto", help="cuda, cuda:N, cpu, or another torch device type present")
    p.add_argument("--lr", type=positive_float, default=None,
                   help="SGD learning rate (default 0.1 x global batch / 256, the ImageNet recipe)")
    p.add_argument("--data", default=None,
                   help="an ImageFolder tree DIR/<class>/<image>, or 'fake' for torchvision FakeData; "
                        "default: synthetic tensors on the device")
    p.add_argument("--epoch-size", type=positive_int, default=None,
                   help=f"images per epoch for synthetic and fake data, all processes together "
                        f"(default {DEFAULT_EPOCH_SIZE})")
    p.add_argument("--num-workers", type=non_negative_int, default=None,
                   help="DataLoader workers per process (default: up to 8, by CPU count)")
    p.add_argument("--num-classes", type=positive_int, default=None,
                   help="classifier outputs (default: 1000, or the folder's class count)")
    p.add_argument("--weights", default=None, help="a local ResNet-50 state dict to start from (fine-tuning)")
    p.add_argument("--checkpoint", default=None, metavar="DIR", help="save a checkpoint here after each epoch")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --checkpoint DIR")
    p.add_argument("--warmup", type=non_negative_int, default=3, help="steps left out of the median")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=positive_int, default=None, help="torch CPU threads")
    p.add_argument("--gpus", default=None, metavar="N|all",
                   help="data-parallel over N devices (torchrun, DDP); with --device cpu, N CPU processes")
    p.add_argument("--find-batch-size", action="store_true",
                   help="find the largest batch that fits (doubling, then bisection), report it and stop")
    p.add_argument("--max-batch-size", type=positive_int, default=None,
                   help="upper bound for --find-batch-size (default 4096 on an accelerator, 64 on the CPU)")
    return p


def check_combinations(args: Any) -> None:
    """Option clashes found before torch is imported or any process started."""
    if args.resume and not args.checkpoint:
        raise WorkloadError("--resume needs --checkpoint DIR (where the checkpoint is)")
    if args.data not in (None, "fake") and args.epoch_size is not None:
        raise WorkloadError("--epoch-size applies to synthetic and fake data",
                            hint="with --data DIR an epoch is the whole folder; cap it with --steps")
    if args.find_batch_size and args.gpus not in (None, "1"):
        raise WorkloadError("--find-batch-size runs on one device", hint="drop --gpus; the batch is per process")
    if args.image_size < 32:
        raise WorkloadError(f"--image-size {args.image_size} is too small for ResNet-50 (it downsamples 32x)",
                            hint="use 32 or more")
    if args.batch_size == 1 and args.image_size <= 32 and not args.find_batch_size:
        raise WorkloadError("a batch of 1 image of 32 px leaves batch norm one value per channel",
                            hint="use --batch-size 2 or more, or a larger --image-size")


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    check_combinations(args)
    if args.gpus is not None and not data_parallel.in_worker():
        nproc = data_parallel.process_count(args.gpus, args.device)
        if nproc > 1:
            return data_parallel.launch(emitter, f"workloads.{WORKLOAD}", _without_gpus(argv), nproc)
    training = Training(args, emitter)
    try:
        if args.find_batch_size:
            training.find_batch_size()
        else:
            training.run()
    finally:
        training.close()
    return 0


def _without_gpus(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--gpus":
            skip = True
            continue
        if arg.startswith("--gpus="):
            continue
        out.append(arg)
    return out


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


@dataclass
class StepRecord:
    images: int
    step_s: float
    compute_s: float
    data_wait_s: float
    loss: float
    counted: bool  # after the warm-up, and not a step that fell back


class Training:
    """One training run: set-up, the step loop, the fallback, and the result."""

    def __init__(self, args: Any, emitter: Emitter):
        import torch

        from workloads.resnet50 import amp_diagnosis
        from workloads.child import device as devices

        self.torch = torch
        self.devices = devices
        self.args = args
        self.emitter = emitter
        self.t_begin = time.perf_counter()
        self.rank = data_parallel.rank() if data_parallel.in_worker() else 0
        self.world = data_parallel.world_size() if data_parallel.in_worker() else 1
        self.distributed = self.world > 1
        self.is_main = self.rank == 0
        self.device = self._pick_device(args.device)
        if args.threads:
            torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed + self.rank)
        if self.distributed:
            data_parallel.init_process_group(self.device)
        self.lr = args.lr or 0.1 * args.batch_size * self.world / 256
        self.amp_dtype = devices.autocast_dtype(args.amp)
        self.precision_requested = "fp32" if args.amp == "off" else args.amp
        self.scaler_on = args.amp == "fp16"
        self.fp32_types: list[str] = []
        self.diagnosed = False
        self.fallbacks: list[dict[str, Any]] = []
        self.compile_checked = not args.compile
        self.memory_format = torch.channels_last if args.channels_last else torch.preserve_format
        oom = os.environ.get(OOM_INJECT_ENV)
        self.oom_above = int(oom) if oom and oom.strip().isdigit() else None
        self.amp_failure_spec = os.environ.get(amp_diagnosis.INJECT_ENV, "").strip()
        self.device_name = devices.name(self.device)
        self.num_workers: int | None = None
        self.epoch_size: int | None = None

    # --- set-up -----------------------------------------------------------------------------

    def _pick_device(self, name: str) -> Any:
        device = self.devices.resolve(name)
        if self.distributed and device.type != "cpu":
            device = self.devices.resolve(f"{device.type}:{data_parallel.local_rank()}")
            backend = getattr(self.torch, device.type, None)
            if backend is not None and hasattr(backend, "set_device"):
                backend.set_device(device)
        return device

    def _start(self, **resolved: Any) -> None:
        """The start event, once the data and the model are ready, with every option as it took effect."""
        config = {k: v for k, v in vars(self.args).items() if not k.startswith("_")}
        config.update(lr=self.lr, epoch_size=self.epoch_size, num_workers=self.num_workers,
                      num_classes=self.num_classes, world_size=self.world, threads=self.torch.get_num_threads(),
                      inject_amp_failure=self.amp_failure_spec or None, inject_oom_batch=self.oom_above, **resolved)
        self.emitter.start(WORKLOAD, config, self.device_name, self.devices.versions())
        if self.is_main:
            log(f"resnet50 on {self.device_name}, {self.world} process(es), batch {self.args.batch_size}, "
                f"image {self.args.image_size} px, precision {self.precision_requested}")

    def _build(self, synthetic_only: bool = False) -> None:
        torch = self.torch
        from workloads.resnet50 import amp_diagnosis
        from workloads.resnet50 import checkpoint
        from workloads.resnet50 import imagedata

        args = self.args
        self.resumed: dict[str, Any] | None = None
        if args.resume:
            self.resumed = checkpoint.read(checkpoint.path_in(args.checkpoint))
            if self.resumed.get("format") != checkpoint.FORMAT:
                raise WorkloadError(f"{checkpoint.path_in(args.checkpoint)} was not written by cardbench's resnet50",
                                    hint="use --weights PATH to start from another state dict")
        self.weights: dict[str, Any] | None = None
        if args.weights is not None:
            self.weights = checkpoint.model_state(checkpoint.read(args.weights, what="weights file"))
        # without --num-classes, synthetic and fake data take the head of what the run starts from
        start_from = self.resumed.get("num_classes") if self.resumed else None
        if start_from is None and self.weights is not None:
            start_from = checkpoint.head_classes(self.weights)
        self.default_classes = int(start_from or 1000)
        self.data = self._data(imagedata, synthetic_only)
        self.model = self._model(checkpoint)
        if self.amp_failure_spec:
            names = amp_diagnosis.inject_failures(self.model, self.amp_failure_spec, self.device.type)
            if not names:
                raise WorkloadError(f"{amp_diagnosis.INJECT_ENV}={self.amp_failure_spec} names no module of ResNet-50")
            if self.is_main:
                log(f"injected autocast failure in: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}")
        self.model.to(self.device, memory_format=self.memory_format)
        self.criterion = torch.nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=self.lr, momentum=0.9, weight_decay=1e-4)
        self.scaler = torch.amp.GradScaler(self.device.type, enabled=self.scaler_on)
        self.start_epoch, self.global_step = 1, 0
        if self.resumed is not None:
            self._restore(self.resumed)
        self.trained: Any = self.model
        if self.distributed:
            from torch.nn.parallel import DistributedDataParallel

            ids = [self.device.index] if self.device.type != "cpu" and self.device.index is not None else None
            self.trained = DistributedDataParallel(self.model, device_ids=ids)
        self.stepped: Any = torch.compile(self.trained) if args.compile else self.trained

    def _data(self, imagedata: Any, synthetic_only: bool) -> Any:
        args = self.args
        epoch_size = args.epoch_size or DEFAULT_EPOCH_SIZE
        if synthetic_only or args.data is None:
            self.num_classes = args.num_classes or self.default_classes
            self.epoch_size = epoch_size
            steps = -(-epoch_size // (args.batch_size * self.world))
            return imagedata.SyntheticBatches(args.batch_size, args.image_size, self.num_classes, self.device,
                                              steps, seed=args.seed + self.rank)
        workers = args.num_workers
        if workers is None:
            workers = min(8, max(1, (os.cpu_count() or 1) // self.world))
        self.num_workers = workers
        pin = self.device.type == "cuda"
        if args.data == "fake":
            self.num_classes = args.num_classes or self.default_classes
            self.epoch_size = epoch_size
            dataset = imagedata.fake_dataset(epoch_size, args.image_size, self.num_classes)
            description = f"FakeData ({epoch_size} images)"
        else:
            root = imagedata.check_folder(args.data)
            dataset = imagedata.folder_dataset(root, args.image_size)
            found = len(dataset.classes)
            if args.num_classes is not None and args.num_classes < found:
                raise WorkloadError(f"--num-classes {args.num_classes} but {args.data} has {found} class folders",
                                    hint="drop --num-classes to use the folder's count")
            self.num_classes = args.num_classes or found
            self.epoch_size = len(dataset)  # the report's cost per epoch of the user's own data
            description = f"ImageFolder {args.data} ({len(dataset)} images, {found} classes)"
        data = imagedata.LoaderBatches(dataset, description, args.batch_size, workers, pin,
                                       rank=self.rank, world_size=self.world, seed=args.seed)
        return data

    def _model(self, checkpoint: Any) -> Any:
        import torchvision

        args = self.args
        state = self.weights
        if state is None:
            return torchvision.models.resnet50(weights=None, num_classes=self.num_classes)
        classes = checkpoint.head_classes(state)
        model = torchvision.models.resnet50(weights=None, num_classes=classes or 1000)
        checkpoint.load_model(model, state, f"weights file {args.weights}")  # names what does not match
        if classes != self.num_classes:
            model.fc = self.torch.nn.Linear(model.fc.in_features, self.num_classes)
            if self.is_main:
                log(f"loaded {args.weights}; new {self.num_classes}-class head (the file's has {classes})")
        return model

    def _restore(self, data: dict[str, Any]) -> None:
        from workloads.resnet50 import checkpoint

        where = str(checkpoint.path_in(self.args.checkpoint))
        checkpoint.load_model(self.model, checkpoint.model_state(data), where)
        try:
            self.optimizer.load_state_dict(data["optimizer"])
            if self.scaler_on and data.get("scaler"):
                self.scaler.load_state_dict(data["scaler"])
        except (KeyError, ValueError, RuntimeError) as exc:
            raise WorkloadError(f"{where}: optimizer state does not fit this run ({exc})".splitlines()[0]) from None
        self.start_epoch = int(data.get("epoch", 0)) + 1
        self.global_step = int(data.get("step", 0))
        if self.is_main:
            log(f"resumed from {where}: epoch {self.start_epoch - 1} done, step {self.global_step}")

    # --- one step ---------------------------------------------------------------------------

    def _autocast(self) -> Any:
        if self.amp_dtype is None:
            return contextlib.nullcontext()
        return self.torch.autocast(self.device.type, dtype=self.amp_dtype)

    def _forward_backward(self, images: Any, labels: Any) -> Any:
        if self.oom_above is not None and images.shape[0] > self.oom_above:
            raise self.torch.OutOfMemoryError(
                f"CUDA out of memory. Tried to allocate a batch of {images.shape[0]} images "
                f"(injected by {OOM_INJECT_ENV}={self.oom_above})")
        with self._autocast():
            loss = self.criterion(self.stepped(images), labels)
        self.optimizer.zero_grad(set_to_none=True)
        if self.scaler_on:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
        return loss

    def _train_step(self, images: Any, labels: Any) -> tuple[Any, bool]:
        """One step; returns (loss, whether it fell back to another way of running)."""
        from workloads.resnet50 import amp_diagnosis

        try:
            loss = self._forward_backward(images, labels)
            self.compile_checked = True
            return loss, False
        except Exception as exc:  # noqa: BLE001 - sorted below: compile, autocast, or a real failure
            if amp_diagnosis.is_out_of_memory(exc):
                raise
            if not self.compile_checked:
                return self._drop_compile(exc, images, labels), True
            if self.amp_dtype is None or not amp_diagnosis.is_amp_device_error(exc):
                raise
            error = amp_diagnosis.first_line(exc)
        return self._fall_back(error, images, labels), True

    def _drop_compile(self, exc: BaseException, images: Any, labels: Any) -> Any:
        from workloads.resnet50 import amp_diagnosis

        error = amp_diagnosis.first_line(exc)
        self.compile_checked = True
        self.stepped = self.trained
        self._note_fallback(error, "torch.compile failed: continuing with the eager model")
        loss, _ = self._train_step(images, labels)
        return loss

    def _fall_back(self, error: str, images: Any, labels: Any) -> Any:
        from workloads.resnet50 import amp_diagnosis
        from workloads.hints import hint_for

        if self.is_main:
            log(f"step under {self.precision} autocast failed: {error}")
        eager = "" if self.stepped is self.trained else "; torch.compile dropped for the eager model"
        self.stepped = self.trained  # the diagnosis and the patches work on the eager model
        first: amp_diagnosis.LayerFailure | None = None
        diagnosis: amp_diagnosis.Diagnosis | None = None
        reason = ""
        if not self.diagnosed:
            self.diagnosed = True
            if self.is_main:
                log("diagnosing: replaying each layer alone under autocast")
            diagnosis = amp_diagnosis.diagnose(self.model, images[:2], self.device, self.amp_dtype)
            if diagnosis.fp32_error:
                raise WorkloadError(f"the step fails without autocast too: {diagnosis.fp32_error}",
                                    hint=hint_for(diagnosis.fp32_error), bad_input=False)
            first = diagnosis.first
            if diagnosis.failing_types:
                types = diagnosis.failing_types
                amp_diagnosis.keep_in_fp32(self.model, types, self.device.type)
                try:
                    loss = self._forward_backward(images, labels)
                except RuntimeError as exc:
                    if not amp_diagnosis.is_amp_device_error(exc):
                        raise
                    reason = f"; autocast off for {', '.join(types)} was not enough: {amp_diagnosis.first_line(exc)}"
                else:
                    self.fp32_types = types
                    self._note_fallback(error, f"autocast off for {', '.join(types)}; "
                                               f"the rest stays in {self.precision_requested}{eager}",
                                        first, diagnosis)
                    return loss
            else:
                reason = "; no single layer fails alone under autocast"
        else:
            reason = "; autocast failed again after the first fallback"
        self.amp_dtype = None
        self.scaler_on = False
        self.fp32_types = []
        loss = self._forward_backward(images, labels)
        self._note_fallback(error, f"continuing in FP32 (autocast off){reason}{eager}", first, diagnosis)
        return loss

    def _note_fallback(self, error: str, action: str, first: Any = None, diagnosis: Any = None) -> None:
        record: dict[str, Any] = {"step": self.global_step + 1, "error": error, "action": action,
                                  "layer": first.layer if first else None, "op": first.module_type if first else None}
        extra: dict[str, Any] = {}
        if first is not None:
            extra["aten_op"] = first.aten_op
        if diagnosis is not None:
            extra["failing_layers"] = [f.layer for f in diagnosis.failures][:20]
            extra["layers_tested"] = diagnosis.layers_tested
        self.fallbacks.append({**record, **extra})
        if self.is_main:
            where = f" at {record['layer']} ({record['op']})" if first else ""
            log(f"FALLBACK{where}: {action}")
        self.emitter.fallback(error, action, layer=record["layer"], op=record["op"],
                              step=record["step"], **extra)

    @property
    def precision(self) -> str:
        if self.amp_dtype is None:
            return "fp32"
        if self.fp32_types:
            return f"{self.precision_requested} (fp32: {', '.join(self.fp32_types)})"
        return self.precision_requested

    # --- the run ----------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        args, devices, dev = self.args, self.devices, self.device
        self._build()
        data = self.data
        steps_per_epoch = data.steps_per_epoch
        epochs_left = max(0, args.epochs - self.start_epoch + 1)
        planned = epochs_left * steps_per_epoch
        if args.steps is not None:
            planned = min(planned, args.steps)
        self._start(steps_per_epoch=steps_per_epoch, start_epoch=self.start_epoch,
                    total_steps=self.global_step + planned)
        if self.is_main:
            log(f"data: {data.description}; {steps_per_epoch} steps per epoch, {planned} steps planned")
        if data.skipped.not_images and self.is_main:
            examples = ", ".join(data.skipped.not_images[:3])
            self.emitter.warning(f"skipping {len(data.skipped.not_images)} non-image files in {args.data} "
                                 f"(e.g. {examples})", code="skipped_files")
        if planned == 0 and self.resumed is not None:
            self.emitter.warning(f"the checkpoint already holds epoch {self.start_epoch - 1} of {args.epochs}: "
                                 "nothing to train", code="nothing_to_train")
        devices.reset_peak_memory(dev)
        records: list[StepRecord] = []
        counted_from = args.warmup  # index into records of the first step the median counts
        run_steps = 0
        epoch = self.start_epoch - 1
        loss_value = float("nan")
        t_start = t_prev = devices.now(dev)
        last_log = 0.0
        memory_read_at = float("-inf")
        allocated = reserved = None
        while run_steps < planned:
            epoch += 1
            epoch_images, epoch_seconds, epoch_losses = 0, 0.0, []
            step_in_epoch = 0
            completed = True
            for images, labels, bad in data.epoch(epoch):
                if bad:
                    self._skipped(bad)
                if images is None:
                    continue
                t_data = time.perf_counter()
                images = images.to(dev, non_blocking=True, memory_format=self.memory_format)
                labels = labels.to(dev, non_blocking=True)
                loss, fell_back = self._train_step(images, labels)
                t_end = devices.now(dev)
                loss_value = loss.item()
                run_steps += 1
                step_in_epoch += 1
                self.global_step += 1
                n = int(images.shape[0]) * self.world
                step_s = t_end - t_prev
                if fell_back:
                    counted_from = len(records) + 1 + args.warmup
                records.append(StepRecord(n, step_s, t_end - t_data, t_data - t_prev, loss_value,
                                          counted=len(records) >= counted_from))
                epoch_images += n
                epoch_seconds += step_s
                epoch_losses.append(loss_value)
                end_of_epoch = step_in_epoch == steps_per_epoch or run_steps == planned
                if self.is_main:
                    extra: dict[str, Any] = {}
                    if len(records) <= counted_from:
                        extra["warmup"] = True
                    if fell_back:
                        extra["fallback"] = True
                    if end_of_epoch:
                        extra["epoch_images_per_s"] = epoch_images / epoch_seconds if epoch_seconds > 0 else None
                        extra["epoch_loss"] = statistics.fmean(epoch_losses)
                    if end_of_epoch or t_end - memory_read_at >= MEMORY_EVERY_S:
                        allocated, reserved = devices.peak_memory(dev)
                        memory_read_at = t_end
                    self.emitter.step(self.global_step, epoch=epoch, loss=loss_value,
                                      throughput=n / step_s if step_s > 0 else None, unit=UNIT,
                                      step_s=step_s, data_wait_s=t_data - t_prev, compute_s=t_end - t_data,
                                      memory_allocated_bytes=allocated, memory_reserved_bytes=reserved, **extra)
                    if run_steps <= 3 or end_of_epoch or t_end - last_log >= LOG_EVERY_S:
                        last_log = t_end
                        self._log_step(epoch, step_in_epoch, steps_per_epoch, loss_value, n, step_s, t_data - t_prev)
                        if end_of_epoch:
                            log(f"epoch {epoch}/{args.epochs} summary: mean loss {extra['epoch_loss']:.4f}, "
                                f"{_num(extra['epoch_images_per_s'])} images/s over {step_in_epoch} steps")
                t_prev = t_end
                if run_steps >= planned:
                    completed = step_in_epoch >= steps_per_epoch
                    break
            if step_in_epoch == 0:
                raise WorkloadError(f"no readable images in {data.description}: "
                                    f"{data.skipped.count} files skipped", hint="check the files decode")
            if completed and args.checkpoint:
                self._save(epoch)
                t_prev = devices.now(dev)  # saving is not training time
            elif args.checkpoint and self.is_main:
                log(f"no checkpoint for epoch {epoch}: it stopped at step {step_in_epoch} of {steps_per_epoch}")
        total_s = devices.now(dev) - t_start
        return self._finish(records, loss_value, total_s, epoch)

    def _log_step(self, epoch: int, step: int, steps: int, loss: float, n: int, step_s: float, wait_s: float) -> None:
        rate = n / step_s if step_s > 0 else float("nan")
        log(f"epoch {epoch}/{self.args.epochs} step {step}/{steps} loss {loss:.4f} {rate:.1f} images/s "
            f"(step {1000 * step_s:.1f} ms, data-wait {1000 * wait_s:.1f} ms)")

    def _skipped(self, indices: list[int]) -> None:
        new = self.data.note_skipped(indices)
        if new and self.is_main:
            self.emitter.warning(f"skipping unreadable image{'s' if len(new) > 1 else ''}: {', '.join(new[:3])}",
                                 code="skipped_files")

    def _save(self, epoch: int) -> None:
        from workloads.resnet50 import checkpoint

        if self.is_main:
            state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                     "scaler": self.scaler.state_dict() if self.scaler_on else None, "epoch": epoch,
                     "step": self.global_step, "num_classes": self.num_classes, "precision": self.precision,
                     "image_size": self.args.image_size}
            path = checkpoint.save(self.args.checkpoint, state)
            log(f"checkpoint saved: {path} (epoch {epoch}, step {self.global_step})")
        if self.distributed:
            import torch.distributed as dist

            dist.barrier()

    def _finish(self, records: list[StepRecord], loss_value: float, total_s: float, epoch: int) -> dict[str, Any]:
        from workloads.resnet50 import baselines as resnet50_baselines

        counted = [r for r in records if r.counted] or records
        rates = [r.images / r.step_s for r in counted if r.step_s > 0]
        compute_rates = [r.images / r.compute_s for r in counted if r.compute_s > 0]
        waited = sum(r.data_wait_s for r in counted)
        spent = sum(r.step_s for r in counted)
        allocated, reserved = self.devices.peak_memory(self.device)
        images_per_s = statistics.median(rates) if rates else None
        metrics: dict[str, Any] = {
            "images_per_s": images_per_s,
            "images_per_s_compute": statistics.median(compute_rates) if compute_rates else None,
            "images_per_s_min": min(rates) if rates else None,
            "images_per_s_max": max(rates) if rates else None,
            "data_wait_fraction": waited / spent if spent > 0 else None,
            "total_s": total_s,
            "setup_s": time.perf_counter() - self.t_begin - total_s,
            "final_loss": loss_value if records else None,
            "precision": self.precision,
            "precision_requested": self.precision_requested,
            "peak_memory_bytes": allocated,
            "peak_memory_reserved_bytes": reserved,
            "batch_size": self.args.batch_size,
            "global_batch_size": self.args.batch_size * self.world,
            "image_size": self.args.image_size,
            "steps": len(records),
            "steps_counted": len(counted),
            "warmup_steps": len(records) - len(counted),
            "last_step": self.global_step,
            "epochs": epoch,
            "num_classes": self.num_classes,
            "data": self.data.description,
            "skipped_files": self.data.skipped.count,
            "skipped_examples": self.data.skipped.examples(),
            "fallbacks": self.fallbacks,
            "world_size": self.world,
            "device": self.device_name,
            "channels_last": bool(self.args.channels_last),
            "compiled": self.stepped is not self.trained,
            # NVIDIA's figures are at 224 px: beside another size they would mislead
            "published_images_per_s": (resnet50_baselines.PUBLISHED_IMAGES_PER_S
                                       if self.args.image_size == 224 else None),
            **resnet50_baselines.bounds(images_per_s, self.args.image_size, self.device_name, self.precision,
                                        devices=self.world),
        }
        if self.is_main:
            self.emitter.result(metrics)
            skipped = f", {metrics['skipped_files']} files skipped" if metrics["skipped_files"] else ""
            fell = f", {len(self.fallbacks)} fallback(s)" if self.fallbacks else ""
            log(f"result: {_num(images_per_s)} images/s median after warm-up "
                f"(compute only {_num(metrics['images_per_s_compute'])}), final loss {_num(loss_value)}, "
                f"precision {self.precision}, {len(records)} steps in {total_s:.1f} s{skipped}{fell}")
        return metrics

    # --- the batch search --------------------------------------------------------------------

    def find_batch_size(self) -> dict[str, Any]:
        from workloads.resnet50 import amp_diagnosis
        from workloads.resnet50 import batch_search

        torch, devices, dev, args = self.torch, self.devices, self.device, self.args
        self._build(synthetic_only=True)
        self._start()
        cap = args.max_batch_size or (64 if dev.type == "cpu" else 4096)
        rates: dict[int, float] = {}
        trial = 0

        def fits(batch: int) -> bool:
            nonlocal trial
            trial += 1
            images = labels = None
            try:
                images = torch.randn(batch, 3, args.image_size, args.image_size, device=dev)
                images = images.contiguous(memory_format=self.memory_format)
                labels = torch.randint(0, self.num_classes, (batch,), device=dev)
                self._train_step(images, labels)  # warm-up: allocator and kernel choice settle
                t0 = devices.now(dev)
                loss, _ = self._train_step(images, labels)
                t1 = devices.now(dev)
                rates[batch] = batch / (t1 - t0)
                allocated, reserved = devices.peak_memory(dev)
                self.emitter.step(trial, loss=loss.item(), throughput=rates[batch], unit=UNIT, step_s=t1 - t0,
                                  memory_allocated_bytes=allocated, memory_reserved_bytes=reserved,
                                  batch_size=batch, fits=True)
                log(f"batch {batch}: fits, {rates[batch]:.1f} images/s")
                return True
            except RuntimeError as exc:
                if not amp_diagnosis.is_out_of_memory(exc):
                    raise
                log(f"batch {batch}: out of memory ({amp_diagnosis.first_line(exc)[:120]})")
                self.emitter.step(trial, batch_size=batch, fits=False)
                return False
            finally:
                del images, labels
                self.optimizer.zero_grad(set_to_none=True)
                gc.collect()
                backend = getattr(torch, dev.type, None)
                if dev.type != "cpu" and backend is not None and hasattr(backend, "empty_cache"):
                    backend.empty_cache()

        # training-mode batch norm needs two images when the last stage is 1x1 (32 px)
        found = batch_search.search(fits, start=2 if args.image_size <= 32 else 1, cap=cap)
        if found.largest is None:
            raise WorkloadError(f"even a batch of {found.smallest_failing} runs out of memory at {args.image_size} px",
                                hint="lower --image-size, or free the device (see `cardbench doctor`)",
                                bad_input=False)
        allocated, reserved = devices.peak_memory(dev)
        metrics = {
            "max_batch_size": found.largest,
            "smallest_failing_batch_size": found.smallest_failing,
            "capped": found.capped,
            "max_batch_size_cap": cap,
            "images_per_s": rates.get(found.largest),
            "tried": [{"batch_size": b, "fits": ok, "images_per_s": rates.get(b) if ok else None}
                      for b, ok in found.tried],
            "precision": self.precision,
            "image_size": args.image_size,
            "peak_memory_bytes": allocated,
            "peak_memory_reserved_bytes": reserved,
            "fallbacks": self.fallbacks,
            "device": self.device_name,
        }
        self.emitter.result(metrics)
        bound = f"reached the cap {cap}" if found.capped else f"{found.smallest_failing} ran out of memory"
        log(f"largest batch that fits: {found.largest} ({bound}); rerun with --batch-size {found.largest}")
        return metrics

    def close(self) -> None:
        if self.distributed:
            data_parallel.shutdown()


def _num(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) else "n/a"

