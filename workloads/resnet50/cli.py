"""ResNet-50 training: images/s, loss, memory, and a mixed-precision fallback that names the failing layer.

Run as ``python -m workloads.resnet50 [options]`` (or ``cardbench run resnet50``).
Events go to stdout through :class:`workloads.child.harness.Emitter`; concise progress
lines go to stderr, which the runner keeps as run.log.

This module is the entry point: it checks the options
(:mod:`~workloads.resnet50.options`, then the values no run can use), takes the
``--checkpoint`` directory's lock (:mod:`~workloads.resnet50.checkpoint_lock`),
relaunches under torchrun for ``--gpus N``, and runs ``--find-batch-size`` or
the training. The training is
:mod:`~workloads.resnet50.setup` (device, data, model, optimiser),
:mod:`~workloads.child.train.precision` (how a step runs and what it falls back to),
:mod:`~workloads.resnet50.loop` (the timed steps) and
:mod:`~workloads.resnet50.result` (the figures). They import torch, so they are
imported only once the options are checked and the run stays in this process.
"""

from __future__ import annotations

import gc
import os
from typing import Any, Sequence

from workloads.child import data_parallel, multinode
from workloads.child.harness import Emitter, WorkloadError, arguments_checked, log
from workloads.errors import first_line
from workloads.resnet50.checkpoint_lock import CheckpointLock
from workloads.resnet50.options import UNIT, WORKLOAD, build_parser, check_combinations, kept_in_fp32

# more torch threads than this per CPU only wait on each other, and far more crash the process (issue 16)
MAX_THREADS_PER_CPU = 4


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    check_combinations(args)
    check_values(args)
    _classes_from_val(args)
    args.fp32_from_scan = kept_in_fp32(args)
    arguments_checked()
    lock = CheckpointLock(args.checkpoint).acquire() if args.checkpoint and _holds_the_lock() else None
    try:
        if args.gpus is not None and not data_parallel.in_worker():
            nproc = data_parallel.process_count(args.gpus, args.device)
            if nproc > 1 or multinode.is_multinode(args):
                argv_of_a_rank = data_parallel.without_gpus(argv)
                return data_parallel.launch(emitter, f"workloads.{WORKLOAD}", argv_of_a_rank, nproc,
                                            multinode.torchrun_args(args), multinode.worker_env(args))
        return _run(emitter, args)
    finally:
        if lock is not None:
            lock.release()


def check_values(args: Any) -> None:
    """Values the parser lets through that no run can use: refused before torch is imported."""
    cpus = os.cpu_count() or 1
    if args.threads is not None and args.threads > MAX_THREADS_PER_CPU * cpus:
        raise WorkloadError(f"--threads {args.threads} is more than {MAX_THREADS_PER_CPU} x the {cpus} CPUs here",
                            hint=f"use --threads {cpus} or fewer, or leave it out for torch's choice")


def _classes_from_val(args: Any) -> None:
    """Training on synthetic or fake data with ``--val DIR``: the head gets the split's classes unless told."""
    if args.val is None or args.eval_only or args.num_classes is not None or args.data not in (None, "fake"):
        return
    root = os.path.expanduser(args.val)
    classes = [e for e in os.listdir(root) if not e.startswith(".") and os.path.isdir(os.path.join(root, e))]
    if classes:
        args.num_classes = len(classes)


def _holds_the_lock() -> bool:
    """Whether this process takes the --checkpoint lock: the process that outlives the run.

    That is the run's own process, or the launcher of a data-parallel run (its ranks
    are its children); under a torchrun the user started, rank 0.
    """
    if not data_parallel.in_worker():
        return True
    return not os.environ.get(data_parallel.WORKER_ENV) and data_parallel.rank() == 0


def _run(emitter: Emitter, args: Any) -> int:
    from workloads.resnet50.setup import Setup

    setup = Setup(args, emitter)
    try:
        if args.find_batch_size:
            find_batch_size(setup)
        elif args.eval_only:
            from workloads.resnet50.evaluate import evaluate_only

            evaluate_only(setup)
        else:
            from workloads.resnet50.loop import Training

            Training(setup).run()
    finally:
        setup.close()
    return 0


def find_batch_size(setup: Any) -> dict[str, Any]:
    """``--find-batch-size``: time one step at each batch the search tries, report the largest that fits."""
    import torch  # lazy: torch, once the options are checked; the modules below import it too

    from workloads.child import device as devices
    from workloads.child.train import batch_search, oom
    from workloads.child.train.precision import Precision

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
            if not oom.is_out_of_memory(exc):
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
