"""What the workbench, the headless suite and the report know of ResNet-50 training (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.cpus import usable_cpus
from workloads.resnet50.result_record import ResNet50Result
from workloads.spec import DEVICE_PLACEHOLDER, Param, SWITCH, SuiteArgs, WorkloadSpec, option, positive
from workloads.vision.resnet50_flops import train_gflop_per_image

# the workload's defaults: its parser (options.py) takes them from here, and a plan made before the start event too
EPOCHS, BATCH_SIZE, EPOCH_SIZE = 3, 128, 12800


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Epochs x steps per epoch, capped by --steps; a folder's epoch is known only once the run has read it."""
    cap = positive(config.get("steps")) or positive(option(args, "--steps"))
    epoch_size = positive(config.get("epoch_size"))
    if epoch_size is None:
        data = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--data"), None)
        if data not in (None, "synthetic", "fake"):
            return cap
        epoch_size = positive(option(args, "--epoch-size")) or EPOCH_SIZE
    epochs = positive(config.get("epochs")) or positive(option(args, "--epochs")) or EPOCHS
    batch = positive(config.get("batch_size")) or positive(option(args, "--batch-size")) or BATCH_SIZE
    per_step = batch * (positive(config.get("world_size")) or 1)
    planned = epochs * -(-epoch_size // per_step)
    return min(cap, planned) if cap else planned


# what one core gives a ResNet-50 training in float32, GFLOP/s: a 2-core VM ran batch 64 at 224 px at 61 GFLOP/s
# (200 steps, 1 h 25 min); a guess of the order of the wait, not a measurement of this host
CPU_GFLOPS_PER_CORE = 30.0


def estimate_s(args: Sequence[str], on_cpu: bool) -> float | None:
    """Seconds the run's images take at the CPU's rate; None on an accelerator (its speed is not known before) or
    where the steps are not (a folder's epoch, uncapped)."""
    steps = planned_steps(args, {})
    if not on_cpu or steps is None:
        return None
    batch = positive(option(args, "--batch-size")) or BATCH_SIZE
    size = positive(option(args, "--image-size")) or 224
    return steps * batch * train_gflop_per_image(size) / (CPU_GFLOPS_PER_CORE * usable_cpus())


SPEC = WorkloadSpec(
    name="resnet50",
    title=Message("workload.resnet50.title"),
    result=ResNet50Result,
    params=(
        Param("batch_size", "batch size", "--batch-size", "64", "int", max=2048),
        Param("epochs", "epochs", "--epochs", "1", "int", max=100),
        Param("steps", "steps (cap)", "--steps", "200", "int", placeholder="no cap", max=100000),
        Param("image_size", "image size", "--image-size", "224", "int", max=1024),
        Param("amp", "AMP", "--amp", "off", "choice", ("off", "fp16", "bf16")),
        Param("channels_last", "channels-last", "--channels-last", "off", "switch", SWITCH),
        Param("data", "data", "--data", "synthetic", placeholder="synthetic | fake | DIR", omit=("synthetic",)),
        Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
    ),
    suite=SuiteArgs(
        quick=("--steps", "200", "--batch-size", "128"),
        standard=("--epochs", "3", "--batch-size", "128"),
        cpu_quick=("--steps", "12", "--batch-size", "8", "--image-size", "64", "--warmup", "2"),
        cpu_standard=("--epochs", "3", "--epoch-size", "96", "--batch-size", "16", "--image-size", "64",
                      "--warmup", "2"),
        cpu_quick_note=Message("workload.resnet50.cpu_quick_note"),
        cpu_standard_note=Message("workload.resnet50.cpu_standard_note"),
        amp_flag="--amp",
    ),
    planned_steps=planned_steps,
    estimate_s=estimate_s,
)
