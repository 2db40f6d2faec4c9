"""What the workbench, the headless suite and the report know of `cardbench run command` (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.spec import Metric, Param, WorkloadSpec, positive


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Unknown before the command prints a bar with a total; the step events carry it from then on."""
    return positive(config.get("total_steps"))


SPEC = WorkloadSpec(
    name="command",
    title=Message("workload.command.title"),
    unit="",  # each run's unit is the one its log printed (it/s, samples/s, img/s): its step events carry it
    headline="throughput",
    params=(
        Param("command", "command", "--command", "", placeholder="your job: python train.py --epochs 3"),
        Param("metric", "--metric NAME=REGEX", "--metric", "",
              placeholder="none (tqdm, Trainer, Lightning, timm, torchvision are read)"),
        Param("device", "device", "--device", "", placeholder="auto: the command's choice (cpu, cuda:1...)"),
    ),
    suite=None,  # the headless suite runs the built-in workloads; a command is run by name
    metrics=(
        Metric("throughput", Message("workload.command.metric.throughput"), "rate"),
        Metric("throughput_unit", Message("workload.command.metric.throughput_unit"),
               "text"),
        Metric("throughput_from", Message("workload.command.metric.throughput_from"), "text"),
        Metric("rates", Message("workload.command.metric.rates")),
        Metric("final_loss", Message("workload.command.metric.final_loss"), "number"),
        Metric("train_samples_per_second", Message("workload.command.metric.train_samples_per_second"), "rate"),
        Metric("train_runtime", Message("workload.command.metric.train_runtime"), "seconds"),
        Metric("eval_loss", Message("workload.command.metric.eval_loss")),
        Metric("exit_code", Message("workload.command.metric.exit_code")),
        Metric("lines", Message("workload.command.metric.lines")),
        Metric("lines_read", Message("workload.command.metric.lines_read")),
        Metric("read_by", Message("workload.command.metric.read_by"), "text"),
    ),
    line_metrics=(Metric("final_loss", Message("workload.command.line.final_loss")), Metric("exit_code", Message("workload.command.line.exit_code"))),
    has_loss=True,
    planned_steps=planned_steps,
)
