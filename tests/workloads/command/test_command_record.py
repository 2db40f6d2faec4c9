"""Every figure a command result can carry is one its record declares (a field, or a family of the job's own names),
and every field it declares is one a log can give: a log with a bar, the Trainer's dicts, its closing summary, an
evaluation, a `--metric` in a second unit and each loss anomaly, read as a run reads it (no process started)."""

from __future__ import annotations

import dataclasses
import io

from workloads.child.harness import Emitter
from workloads.command.cli import JobOutput, _result
from workloads.command.parsers.custom import compile_metric
from workloads.command.result_record import CommandResult
from workloads.cpu_fallback_record import CpuFallbackFigures
from workloads.jobs.output import NEWLINE
from workloads.result_record import STRICT_ENV

LOG = [f"Training: {n}0%|#| {n}/10 [00:0{n}<00:0{10 - n},  2.00it/s, loss={loss}]"
       for n, loss in enumerate(("1.0", "nan", "0.0", "0.0", "0.0", "0.5", "50.0"), start=1)] + [
    "{'loss': 2.0, 'grad_norm': nan, 'learning_rate': 5e-05, 'epoch': 0.7}",
    "eval speed: images/s 812.5",
    "{'eval_loss': 0.5, 'eval_runtime': 0.3, 'eval_samples_per_second': 30.0, 'eval_steps_per_second': 3.0, "
    "'eval_accuracy': 0.8, 'epoch': 1.0}",
    "{'train_runtime': 2.0, 'train_samples_per_second': 8.0, 'train_steps_per_second': 4.0, "
    "'train_tokens_per_second': 100.0, 'total_flos': 1e12, 'train_loss': 0.9, 'train_perplexity': 2.5, 'epoch': 1.0}",
]


def test_every_figure_of_a_command_result_is_declared_and_every_declared_one_given(monkeypatch):
    monkeypatch.delenv(STRICT_ENV)   # the undeclared keys listed, rather than the first one raised
    output = JobOutput(Emitter(stream=io.StringIO()), (compile_metric(r"img/s=images/s ([0-9.]+)"),))
    for line in LOG:
        output.line(line, NEWLINE)
    result = _result(output.tracker, output.printed, output.understood, 0, 1, output.watch)
    assert CommandResult.of(result).undeclared() == []
    # the CPU fallback check's figures come from the job's launcher, not its log (test_command_fallback_check.py)
    fields = {f.key for f in CommandResult.figures()} - {f.name for f in dataclasses.fields(CpuFallbackFigures)}
    assert fields <= set(result)
    assert set(result) - fields == {"train_perplexity", "eval_accuracy", "metric img/s"}   # the families' members
    assert CommandResult.figure("metric img/s").label("en") == "img/s, its last value (your --metric)"
