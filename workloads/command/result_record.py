"""The result of a command run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free.

What `workloads.command.progress.Tracker.result` read from the job's log and `workloads.command.cli` adds: the
headline (the median of the rates the log printed, in the log's unit), the tool's closing figures (the Hugging Face
Trainer's ``train_*`` and ``total_flos``), the last evaluation's ``eval_*``, the user's ``--metric`` figures as
``metric <name>``, and how the command ran (lines, exit code, the loss anomalies flagged). The Trainer's, the
evaluation's and the user's names are the job's own words: the usual ones are fields, the rest families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.catalogue import message
from workloads.command.anomalies import JUMP, ZERO_RUN
from workloads.cpu_fallback_record import CpuFallbackFigures
from workloads.result_record import SECONDS, TEXT, COUNT, Family, Record, figure


@dataclass
class CommandResult(CpuFallbackFigures, Record):   # --cpu-fallback-check on: its figures
    HEADLINE: ClassVar[str] = "throughput"
    TABLE: ClassVar[tuple[str, ...]] = ("throughput", "throughput_unit", "throughput_from", "rates", "final_loss",
        "train_samples_per_second", "train_runtime", "eval_loss", "exit_code", "lines", "lines_read", "read_by")
    LINE: ClassVar[tuple[str, ...]] = ("final_loss", "exit_code")
    UNIT: ClassVar[str | None] = ""   # the unit your log prints (it/s...), said by the result's throughput_unit
    FAMILIES: ClassVar[tuple[Family, ...]] = (
        Family(r"(?P<name>train_.+)", "workload.command.metric.train_other", COUNT),
        Family(r"(?P<name>eval_.+)", "workload.command.metric.eval_other", COUNT),
        Family(r"metric (?P<name>.+)", "workload.command.metric.asked", COUNT),   # --metric NAME=REGEX, its last
    )

    # the rates the log printed (progress.Tracker)
    throughput: float | None = figure("workload.command.metric.throughput", "/s")
    throughput_unit: str | None = figure("workload.command.metric.throughput_unit", TEXT)
    throughput_from: str | None = figure("workload.command.metric.throughput_from", TEXT)
    rates: int | None = figure("workload.command.metric.rates", COUNT)
    warmup_steps: int | None = figure("workload.command.metric.warmup_steps", COUNT)
    rates_in_other_units: int | None = figure("workload.command.metric.rates_in_other_units", COUNT)
    steps_read: int | None = figure("workload.command.metric.steps_read", COUNT)
    final_loss: float | None = figure(
        "workload.command.metric.final_loss", COUNT, short="workload.command.line.final_loss")
    read_by: str | None = figure("workload.command.metric.read_by", TEXT)
    # the Trainer's closing summary and its last evaluation, under the Trainer's own names
    train_samples_per_second: float | None = figure("workload.command.metric.train_samples_per_second", "samples/s")
    train_steps_per_second: float | None = figure("workload.command.metric.train_steps_per_second", "steps/s")
    train_tokens_per_second: float | None = figure("workload.command.metric.train_tokens_per_second", "tokens/s")
    train_runtime: float | None = figure("workload.command.metric.train_runtime", SECONDS)
    train_loss: float | None = figure("workload.command.metric.train_loss", COUNT)
    total_flos: float | None = figure("workload.command.metric.total_flos", COUNT)
    eval_loss: float | None = figure("workload.command.metric.eval_loss", COUNT)
    eval_runtime: float | None = figure("workload.command.metric.eval_runtime", SECONDS)
    eval_samples_per_second: float | None = figure("workload.command.metric.eval_samples_per_second", "samples/s")
    eval_steps_per_second: float | None = figure("workload.command.metric.eval_steps_per_second", "steps/s")
    # how the command ran (cli._result)
    exit_code: int | None = figure(
        "workload.command.metric.exit_code", COUNT, short="workload.command.line.exit_code")
    lines: int | None = figure("workload.command.metric.lines", COUNT)
    lines_read: int | None = figure("workload.command.metric.lines_read", COUNT)
    leftover_processes_stopped: int | None = figure("workload.command.metric.leftover_processes_stopped", COUNT)
    # the loss anomalies flagged as warnings (anomalies.LossWatch), one count per code; absent when none
    anomalies_nonfinite_loss: int | None = figure("workload.command.metric.anomalies_nonfinite_loss", COUNT)
    anomalies_nonfinite_grad_norm: int | None = figure("workload.command.metric.anomalies_nonfinite_grad_norm", COUNT)
    anomalies_zero_loss: int | None = figure(
        message("workload.command.metric.anomalies_zero_loss", n=str(ZERO_RUN)), COUNT)
    anomalies_loss_jump: int | None = figure(
        message("workload.command.metric.anomalies_loss_jump", times=f"{JUMP:g}"), COUNT)
