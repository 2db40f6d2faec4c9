"""Where and on what a ResNet-50 run trains: process role, device, data, model, optimiser, and what it resumes from.

``CARDBENCH_INJECT_AMP_FAILURE`` and ``CARDBENCH_INJECT_OOM_BATCH`` are read here
(see :mod:`workloads.child.train.precision`), so the start event says a run was rigged.
"""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from workloads.child import data_parallel
from workloads.child import device as devices
from workloads.child.harness import Emitter, WorkloadError, log
from workloads.child.train import amp_diagnosis, oom
from workloads.child.train.memory import total_memory
from workloads.errors import first_line
from workloads.facts.formatting import format_bytes
from workloads.resnet50 import checkpoint, imagedata
from workloads.resnet50.options import DEFAULT_EPOCH_SIZE, WORKLOAD

# What one training step holds, on the low side, so that only a run that cannot fit is refused: ResNet-50
# keeps about 100 MB of activations and their gradients per 224 px image in FP32 (about 130 MB measured on
# the CPU), in proportion to the pixels, about half of it under autocast; the weights, their gradients and
# SGD's momentum are about 0.3 GB.
ACTIVATION_BYTES_PER_224_IMAGE = 100e6
MODEL_STATE_BYTES = 0.3e9


class Setup:
    """One process's share of a run, from the options to a model and optimiser ready for the first step."""

    def __init__(self, args: Any, emitter: Emitter):
        self.args = args
        self.emitter = emitter
        self.t_begin = time.perf_counter()
        self.rank = data_parallel.rank() if data_parallel.in_worker() else 0
        self.world = data_parallel.world_size() if data_parallel.in_worker() else 1
        self.distributed = self.world > 1
        self.is_main = self.rank == 0
        self.device = self._pick_device(args.device)
        self._check_memory()
        if args.threads:
            torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed + self.rank)
        if self.distributed:
            data_parallel.init_process_group(self.device)
        self.lr = args.lr or 0.1 * args.batch_size * self.world / 256
        self.memory_format = torch.channels_last if args.channels_last else torch.preserve_format
        self.oom_above = oom.injected_limit()
        self.amp_failure_spec = os.environ.get(amp_diagnosis.INJECT_ENV, "").strip()
        self.device_name = devices.name(self.device)
        self.num_workers: int | None = None
        self.epoch_size: int | None = None

    def _pick_device(self, name: str) -> Any:
        device = devices.resolve(name)
        if self.distributed and device.type != "cpu":
            device = devices.resolve(f"{device.type}:{data_parallel.local_rank()}")
            devices.set_device(device)
        return device

    def _check_memory(self) -> None:
        """Refuse, before anything is allocated, a step that needs more memory than the device has at all.

        An out-of-memory error says only what the allocator failed to get, and a large enough
        request is not even that (the kernel ends the process). ``--find-batch-size`` is checked
        with one image: it finds the batch that fits by running out of memory on purpose.
        """
        args = self.args
        batch = 1 if args.find_batch_size else args.batch_size
        sharing = self.world if self.device.type == "cpu" else 1  # CPU processes share the host's memory
        needed = sharing * step_memory_estimate(batch, args.image_size, args.amp != "off")
        total = total_memory(self.device)
        if total is None or needed <= total:
            return
        shared = f" x {sharing} processes" if sharing > 1 else ""
        raise WorkloadError(
            f"--image-size {args.image_size} with a batch of {batch}{shared} needs about {format_bytes(needed)} for "
            f"one training step; {self.device} has {format_bytes(total)} in all",
            hint="lower --image-size" if args.find_batch_size else
            "lower --batch-size or --image-size (--find-batch-size finds the largest batch that fits)")

    def start(self, precision: str, **resolved: Any) -> None:
        """The start event, once the data and the model are ready, with every option as it took effect."""
        config = {k: v for k, v in vars(self.args).items() if not k.startswith("_")}
        config.update(lr=self.lr, epoch_size=self.epoch_size, num_workers=self.num_workers,
                      num_classes=self.num_classes, world_size=self.world, threads=torch.get_num_threads(),
                      inject_amp_failure=self.amp_failure_spec or None, inject_oom_batch=self.oom_above, **resolved)
        self.emitter.start(WORKLOAD, config, self.device_name, devices.versions())
        if self.is_main:
            log(f"resnet50 on {self.device_name}, {self.world} process(es), batch {self.args.batch_size}, "
                f"image {self.args.image_size} px, precision {precision}")

    def build(self, synthetic_only: bool = False) -> None:
        args = self.args
        self.resumed: dict[str, Any] | None = None
        if args.resume:
            where = checkpoint.path_in(args.checkpoint)
            self.resumed = checkpoint.read(where)
            if self.resumed.get("format") != checkpoint.FORMAT:
                raise WorkloadError(f"{where} was not written by cardbench's resnet50",
                                    hint="use --weights PATH to start from another state dict")
            checkpoint.counters(self.resumed, f"checkpoint {where}")
        self.weights: dict[str, Any] | None = None
        if args.weights is not None:
            self.weights = checkpoint.model_state(checkpoint.read(args.weights, what="weights file"))
        # without --num-classes, synthetic and fake data take the head of what the run starts from
        start_from = self.resumed.get("num_classes") if self.resumed else None
        if start_from is None and self.weights is not None:
            start_from = checkpoint.head_classes(self.weights)
        self.default_classes = int(start_from or 1000)
        self.data = self._data(synthetic_only)
        self.model = self._model()
        if self.amp_failure_spec:
            names = amp_diagnosis.inject_failures(self.model, self.amp_failure_spec, self.device.type)
            if not names:
                raise WorkloadError(f"{amp_diagnosis.INJECT_ENV}={self.amp_failure_spec} names no module of ResNet-50")
            if self.is_main:
                log(f"injected autocast failure in: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}")
        if getattr(args, "fp32_from_scan", None):
            kept = amp_diagnosis.keep_in_fp32(self.model, args.fp32_from_scan, self.device.type)
            if self.is_main:
                log(f"--ops-from {args.ops_from}: {', '.join(args.fp32_from_scan)} kept in fp32 from the start "
                    f"({len(kept)} modules; their ops failed in {args.amp} in that scan)")
        self.model.to(self.device, memory_format=self.memory_format)
        self.criterion = torch.nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=self.lr, momentum=0.9, weight_decay=1e-4)
        self.scaler = torch.amp.GradScaler(devices.autocast_type(self.device), enabled=args.amp == "fp16")
        self.start_epoch, self.start_step = 1, 0
        if self.resumed is not None:
            self._restore(self.resumed)
        self.trained: Any = self.model
        if self.distributed:
            from torch.nn.parallel import DistributedDataParallel

            ids = [self.device.index] if self.device.type != "cpu" and self.device.index is not None else None
            self.trained = DistributedDataParallel(self.model, device_ids=ids)

    def _data(self, synthetic_only: bool) -> Any:
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
        return imagedata.LoaderBatches(dataset, description, args.batch_size, workers, pin,
                                       rank=self.rank, world_size=self.world, seed=args.seed)

    def _model(self) -> Any:
        import torchvision

        args = self.args
        state = self.weights
        if state is None:
            return torchvision.models.resnet50(weights=None, num_classes=self.num_classes)
        classes = checkpoint.head_classes(state)
        model = torchvision.models.resnet50(weights=None, num_classes=classes or 1000)
        checkpoint.load_model(model, state, f"weights file {args.weights}")  # names what does not match
        if classes != self.num_classes:
            model.fc = torch.nn.Linear(model.fc.in_features, self.num_classes)
            if self.is_main:
                log(f"loaded {args.weights}; new {self.num_classes}-class head (the file's has {classes})")
        return model

    def _restore(self, data: dict[str, Any]) -> None:
        where = str(checkpoint.path_in(self.args.checkpoint))
        checkpoint.load_model(self.model, checkpoint.model_state(data), where)
        try:
            self.optimizer.load_state_dict(data["optimizer"])
            if self.scaler.is_enabled() and data.get("scaler"):
                self.scaler.load_state_dict(data["scaler"])
        except (KeyError, ValueError, RuntimeError) as exc:
            raise WorkloadError(f"{where}: optimizer state does not fit this run ({first_line(exc)})") from None
        self.start_epoch = int(data.get("epoch", 0)) + 1
        self.start_step = int(data.get("step", 0))
        if self.is_main:
            log(f"resumed from {where}: epoch {self.start_epoch - 1} done, step {self.start_step}")

    def close(self) -> None:
        if self.distributed:
            data_parallel.shutdown()


def step_memory_estimate(batch: int, image_size: int, autocast: bool) -> float:
    """Bytes one training step of ``batch`` images of ``image_size`` px holds, about and on the low side."""
    per_image = ACTIVATION_BYTES_PER_224_IMAGE * (image_size / 224) ** 2 * (0.5 if autocast else 1.0)
    return MODEL_STATE_BYTES + batch * per_image


