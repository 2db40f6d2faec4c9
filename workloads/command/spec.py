"""What the workbench, the headless suite and the report know of `cardbench run command` (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.command.result_record import CommandResult
from workloads.spec import Param, WorkloadSpec, positive


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Unknown before the command prints a bar with a total; the step events carry it from then on."""
    return positive(config.get("total_steps"))


SPEC = WorkloadSpec(
    name="command",
    title=Message("workload.command.title"),
    result=CommandResult,
    # each run's unit is the one its log printed (it/s, samples/s, img/s): its step events carry it
    params=(
        Param("command", "command", "--command", "", placeholder="your job: python train.py --epochs 3"),
        Param("metric", "--metric NAME=REGEX", "--metric", "",
              placeholder="none (tqdm, Trainer, Lightning, timm, torchvision are read)"),
        Param("device", "device", "--device", "", placeholder="auto: the command's choice (cpu, cuda:1...)"),
    ),
    suite=None,  # the headless suite runs the built-in workloads; a command is run by name
    has_loss=True,
    planned_steps=planned_steps,
)
