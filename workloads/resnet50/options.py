"""The ResNet-50 workload's name and unit, its options and their clashes.

Torch-free: the entry point checks a command with it before anything heavy is
imported, and the run modules take their names and defaults from here.
"""

from __future__ import annotations

import os
from typing import Any

from workloads.child import cpu_fallback_option, data_parallel, multinode
from workloads.child.harness import ArgumentParser, WorkloadError, non_negative_int, positive_float, positive_int
from workloads.resnet50.spec import BATCH_SIZE, EPOCH_SIZE, EPOCHS, SPEC
from workloads.rundir.ops_csv import failing_module_types

WORKLOAD = SPEC.name
UNIT = SPEC.unit
DEFAULT_EPOCH_SIZE = EPOCH_SIZE  # 100 steps of the default batch


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog=WORKLOAD, description="Train torchvision's ResNet-50 and report images/s.")
    p.add_argument("--epochs", metavar="N", type=positive_int, default=EPOCHS,
                   help=f"epochs to train; an epoch is --epoch-size images, or the whole --data folder "
                        f"(default {EPOCHS})")
    p.add_argument("--steps", metavar="N", type=positive_int, default=None,
                   help="stop after this many steps (this run)")
    p.add_argument("--batch-size", metavar="N", type=positive_int, default=BATCH_SIZE,
                   help=f"images per step per process (default {BATCH_SIZE})")
    p.add_argument("--image-size", metavar="PX", type=positive_int, default=224,
                   help="side of the square input images in pixels, 32 or more (default 224)")
    p.add_argument("--amp", choices=("off", "fp16", "bf16"), default="off",
                   help="autocast precision; fp16 uses a gradient scaler")
    p.add_argument("--channels-last", action="store_true",
                   help="NHWC memory layout for the model and its inputs (often faster with --amp on a GPU)")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (falls back to eager on failure)")
    p.add_argument("--device", metavar="DEVICE", default="auto",
                   help="cuda, cuda:N, cpu, or another torch device type present (default: first accelerator)")
    p.add_argument("--lr", metavar="LR", type=positive_float, default=None,
                   help="SGD learning rate (default 0.1 x global batch / 256, the ImageNet recipe)")
    p.add_argument("--data", metavar="DIR|fake", default=None,
                   help="an ImageFolder tree DIR/<class>/<image>, or 'fake' for torchvision FakeData; "
                        "default: synthetic tensors on the device")
    p.add_argument("--epoch-size", metavar="N", type=positive_int, default=None,
                   help=f"images per epoch for synthetic and fake data, all processes together "
                        f"(default {DEFAULT_EPOCH_SIZE})")
    p.add_argument("--num-workers", metavar="N", type=non_negative_int, default=None,
                   help="DataLoader workers per process (default: up to 8, by CPU count)")
    p.add_argument("--num-classes", metavar="N", type=positive_int, default=None,
                   help="classifier outputs (default: 1000, or the folder's class count)")
    p.add_argument("--weights", metavar="FILE", default=None,
                   help="a local ResNet-50 state dict to start from (fine-tuning)")
    p.add_argument("--val", metavar="DIR", default=None,
                   help="an ImageFolder validation split DIR/<class>/<image>: top-1 and top-5 accuracy after each "
                        "epoch (its class folders must be the training data's)")
    p.add_argument("--eval-only", action="store_true",
                   help="no training: evaluate --weights FILE on --val DIR and report top-1 and top-5")
    p.add_argument("--checkpoint", default=None, metavar="DIR", help="save a checkpoint here after each epoch")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in --checkpoint DIR")
    p.add_argument("--warmup", metavar="N", type=non_negative_int, default=3,
                   help="first steps left out of the median (default 3)")
    cpu_fallback_option.add_argument(p)
    p.add_argument("--seed", metavar="N", type=int, default=0, help="seed of the weights and the data (default 0)")
    p.add_argument("--threads", metavar="N", type=positive_int, default=None,
                   help="torch CPU threads (default: torch's choice)")
    p.add_argument("--gpus", default=None, metavar="N|all",
                   help="data-parallel over N devices (torchrun, DDP); with --device cpu, N CPU processes")
    p.add_argument("--find-batch-size", action="store_true",
                   help="find the largest batch that fits (doubling, then bisection), report it and stop")
    p.add_argument("--ops-from", metavar="RUN_DIR", default=None,
                   help="an opscan run: the module types that call an op which failed there in the --amp dtype "
                        "run in fp32 from the first step")
    p.add_argument("--max-batch-size", metavar="N", type=positive_int, default=None,
                   help="upper bound for --find-batch-size (default 4096 on an accelerator, 64 on the CPU)")
    multinode.add_multinode_arguments(p)
    return p


def check_combinations(args: Any) -> None:
    """Option clashes found before torch is imported or any process started."""
    multinode.check(args)
    if multinode.is_multinode(args) and args.gpus is None and not data_parallel.in_worker():
        raise WorkloadError("--nnodes and --rdzv-endpoint need --gpus N|all: the processes on each node",
                            hint="for example --gpus all on GPU nodes, --device cpu --gpus 1 to try it on CPUs")
    if args.find_batch_size and multinode.is_multinode(args):
        raise WorkloadError("--find-batch-size runs on one device", hint="drop --nnodes; the batch is per process")
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
    if args.ops_from is not None and args.amp == "off":
        raise WorkloadError("--ops-from keeps in fp32 what failed in a mixed precision; without --amp all is fp32",
                            hint="add --amp bf16 or --amp fp16")
    if args.eval_only and (args.val is None or args.weights is None):
        raise WorkloadError("--eval-only evaluates trained weights on a validation split",
                            hint="give both --weights FILE and --val DIR")
    if args.eval_only and (args.resume or args.find_batch_size or args.gpus not in (None, "1")):
        raise WorkloadError("--eval-only runs no training: --resume, --find-batch-size and --gpus do not apply",
                            hint="drop them, or drop --eval-only")
    if args.val is not None and not os.path.isdir(os.path.expanduser(args.val)):
        why = "does not exist" if not os.path.exists(os.path.expanduser(args.val)) else "is not a directory"
        raise WorkloadError(f"--val {args.val} {why}", hint="give an ImageFolder tree: DIR/<class name>/<image file>")
    if args.val is not None and args.find_batch_size:
        raise WorkloadError("--find-batch-size trains nothing to evaluate", hint="drop --val")
    if args.batch_size == 1 and args.image_size <= 32 and not args.find_batch_size:
        raise WorkloadError("a batch of 1 image of 32 px leaves batch norm one value per channel",
                            hint="use --batch-size 2 or more, or a larger --image-size")


def kept_in_fp32(args: Any) -> list[str]:
    """The module types ``--ops-from RUN_DIR`` keeps in fp32: those of ResNet-50 that call an op the scan found
    failing in the ``--amp`` dtype (none without the option). Read before torch is imported."""
    if args.ops_from is None:
        return []
    try:
        return failing_module_types(args.ops_from, args.amp, source=WORKLOAD)
    except (OSError, ValueError, KeyError) as exc:
        raise WorkloadError(f"--ops-from {args.ops_from}: not the run directory of an opscan ({exc})",
                            hint="give the directory of a `cardbench run opscan` run (it holds ops.csv)") from None
