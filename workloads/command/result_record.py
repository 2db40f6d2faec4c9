"""The result of a command run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import SECONDS, TEXT, COUNT, Record, figure


@dataclass
class CommandResult(Record):
    HEADLINE: ClassVar[str] = "throughput"
    TABLE: ClassVar[tuple[str, ...]] = ("throughput", "throughput_unit", "throughput_from", "rates", "final_loss",
        "train_samples_per_second", "train_runtime", "eval_loss", "exit_code", "lines", "lines_read", "read_by")
    LINE: ClassVar[tuple[str, ...]] = ("final_loss", "exit_code")
    UNIT: ClassVar[str | None] = ""   # the unit your log prints (it/s...), said by the result's throughput_unit

    throughput: float | None = figure("workload.command.metric.throughput", "/s")
    throughput_unit: str | None = figure("workload.command.metric.throughput_unit", TEXT)
    throughput_from: str | None = figure("workload.command.metric.throughput_from", TEXT)
    rates: float | None = figure("workload.command.metric.rates", COUNT)
    final_loss: float | None = figure(
        "workload.command.metric.final_loss", COUNT, short="workload.command.line.final_loss")
    train_samples_per_second: float | None = figure("workload.command.metric.train_samples_per_second", "samples/s")
    train_runtime: float | None = figure("workload.command.metric.train_runtime", SECONDS)
    eval_loss: float | None = figure("workload.command.metric.eval_loss", COUNT)
    exit_code: float | None = figure(
        "workload.command.metric.exit_code", COUNT, short="workload.command.line.exit_code")
    lines: float | None = figure("workload.command.metric.lines", COUNT)
    lines_read: float | None = figure("workload.command.metric.lines_read", COUNT)
    read_by: str | None = figure("workload.command.metric.read_by", TEXT)
