"""ResNet-50 training: images/s, loss, memory, and a mixed-precision fallback that names the failing layer.

Run as ``python -m workloads.resnet50 [options]`` (or ``cardbench run resnet50``).
Events go to stdout through :class:`workloads.child.harness.Emitter`; concise progress
lines go to stderr, which the runner keeps as run.log.

This module is the entry point: it checks the options
(:mod:`~workloads.resnet50.options`, then the values no run can use), takes the
``--checkpoint`` directory's lock (:mod:`~workloads.resnet50.checkpoint_lock`),
relaunches under torchrun for ``--gpus N``, and runs ``--find-batch-size``
(:mod:`~workloads.resnet50.find_batch_size`) or the training. The training is
:mod:`~workloads.resnet50.setup` (device, data, model, optimiser),
:mod:`~workloads.child.train.precision` (how a step runs and what it falls back to),
:mod:`~workloads.resnet50.loop` (the timed steps) and
:mod:`~workloads.resnet50.result` (the figures). They import torch, so they are
imported only once the options are checked and the run stays in this process.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from workloads.child import data_parallel
from workloads.child.harness import Emitter, WorkloadError, arguments_checked
from workloads.resnet50.checkpoint_lock import CheckpointLock
from workloads.resnet50.options import WORKLOAD, build_parser, check_combinations, kept_in_fp32

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
        code = data_parallel.relaunched(emitter, f"workloads.{WORKLOAD}", args, argv)
        return code if code is not None else _run(emitter, args)
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
    from workloads.resnet50.setup import Setup  # lazy: torch, once the options are checked (so the imports below)

    setup = Setup(args, emitter)
    try:
        if args.find_batch_size:
            from workloads.resnet50.find_batch_size import find_batch_size

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
