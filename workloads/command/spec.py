"""What the workbench, the headless suite and the report know of `cardbench run command` (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.spec import Metric, Param, Text, WorkloadSpec, positive


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Unknown before the command prints a bar with a total; the step events carry it from then on."""
    return positive(config.get("total_steps"))


SPEC = WorkloadSpec(
    name="command",
    title=Text("Command (your own job)", "命令（您自己的作业）"),
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
        Metric("throughput", Text("throughput the log printed (median of its rates after the first few)",
                                  "日志打印的吞吐量（去掉最初几个后的速率中位数）"), "rate"),
        Metric("throughput_unit", Text("unit of that throughput, as the log wrote it", "该吞吐量的单位（按日志原样）"),
               "text"),
        Metric("throughput_from", Text("which rate the tool printed", "工具打印的是哪种速率"), "text"),
        Metric("rates", Text("rates in that median", "参与中位数的速率个数")),
        Metric("final_loss", Text("last loss the log printed", "日志打印的最后一个损失"), "number"),
        Metric("train_samples_per_second", Text("samples/s the Trainer reported at the end (train_samples_per_second)",
                                                "Trainer 结束时报告的 samples/s（train_samples_per_second）"), "rate"),
        Metric("train_runtime", Text("training time the Trainer reported (train_runtime)",
                                     "Trainer 报告的训练时间（train_runtime）"), "seconds"),
        Metric("eval_loss", Text("last evaluation loss the log printed (eval_loss)", "日志打印的最后评估损失（eval_loss）")),
        Metric("exit_code", Text("the command's exit code", "命令的退出码")),
        Metric("lines", Text("lines the command printed (bar redraws included)", "命令打印的行数（含进度条重绘）")),
        Metric("lines_read", Text("lines read for progress", "用于读取进度的行数")),
        Metric("read_by", Text("log formats recognised", "识别出的日志格式"), "text"),
    ),
    line_metrics=(Metric("final_loss", Text("last loss", "最后损失")), Metric("exit_code", Text("exit code", "退出码"))),
    has_loss=True,
    planned_steps=planned_steps,
)
