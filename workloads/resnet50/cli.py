"""ResNet-50 training: images/s, loss, memory, and a mixed-precision fallback that names the failing layer.

Run as ``python -m workloads.resnet50 [options]`` (or ``cardbench run resnet50``).
Events go to stdout through :class:`workloads.child.harness.Emitter`; concise progress
lines go to stderr, which the runner keeps as run.log.

This module is the command line: the options, their clashes, the torchrun
relaunch for ``--gpus N``, and ``--find-batch-size``. The run itself is
:mod:`~workloads.resnet50.setup` (device, data, model, optimiser),
:mod:`~workloads.resnet50.precision` (how a step runs and what it falls back to),
:mod:`~workloads.resnet50.loop` (the timed steps) and
:mod:`~workloads.resnet50.result` (the figures). They import torch, so they are
imported only once the options are checked and the run stays in this process.
"""

from __future__ import annotations

import gc
from typing import Any, Sequence

from workloads.child import data_parallel
from workloads.child.harness import (ArgumentParser, Emitter, WorkloadError, log, non_negative_int, positive_float,
                                     positive_int)
from workloads.errors import first_line

WORKLOAD = "resnet50"
UNIT = "images/s"
DEFAULT_EPOCH_SIZE = 12800  # 100 steps of the default batch


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

    from workloads.resnet50.setup import Setup

    setup = Setup(args, emitter)
    try:
        if args.find_batch_size:
            find_batch_size(setup)
        else:
            from workloads.resnet50.loop import Training

            Training(setup).run()
    finally:
        setup.close()
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


def find_batch_size(setup: Any) -> dict[str, Any]:
    """``--find-batch-size``: time one step at each batch the search tries, report the largest that fits."""
    import torch

    from workloads.child import device as devices
    from workloads.resnet50 import amp_diagnosis, batch_search
    from workloads.resnet50.precision import Precision

    dev, args = setup.device, setup.args
    setup.build(synthetic_only=True)
    precision = Precision(setup)
    setup.start(precision.requested)
    cap = args.max_batch_size or (64 if dev.type == "cpu" else 4096)
    rates: dict[int, float] = {}
    trial = 0

    def fits(batch: int) -> bool:
        nonlocal trial
        trial += 1
        images = labels = None
        try:
            images = torch.randn(batch, 3, args.image_size, args.image_size, device=dev)
            images = images.contiguous(memory_format=setup.memory_format)
            labels = torch.randint(0, setup.num_classes, (batch,), device=dev)
            precision.train_step(images, labels, setup.start_step + 1)  # warm-up: allocator and kernel choice settle
            t0 = devices.now(dev)
            loss, _ = precision.train_step(images, labels, setup.start_step + 1)
            t1 = devices.now(dev)
            rates[batch] = batch / (t1 - t0)
            allocated, reserved = devices.peak_memory(dev)
            setup.emitter.step(trial, loss=loss.item(), throughput=rates[batch], unit=UNIT, step_s=t1 - t0,
                               memory_allocated_bytes=allocated, memory_reserved_bytes=reserved,
                               batch_size=batch, fits=True)
            log(f"batch {batch}: fits, {rates[batch]:.1f} images/s")
            return True
        except RuntimeError as exc:
            if not amp_diagnosis.is_out_of_memory(exc):
                raise
            log(f"batch {batch}: out of memory ({first_line(exc, limit=120)})")
            setup.emitter.step(trial, batch_size=batch, fits=False)
            return False
        finally:
            del images, labels
            setup.optimizer.zero_grad(set_to_none=True)
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
        "precision": precision.label,
        "image_size": args.image_size,
        "peak_memory_bytes": allocated,
        "peak_memory_reserved_bytes": reserved,
        "fallbacks": precision.fallbacks,
        "device": setup.device_name,
    }
    setup.emitter.result(metrics)
    bound = f"reached the cap {cap}" if found.capped else f"{found.smallest_failing} ran out of memory"
    log(f"largest batch that fits: {found.largest} ({bound}); rerun with --batch-size {found.largest}")
    return metrics
