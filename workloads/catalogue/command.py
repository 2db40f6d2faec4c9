"""The words of `cardbench run command`: ``workload.command.<key>``, said by message id (`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the spec (workloads/command/spec.py): its title, progress word, notes and the labels of its figures (metric.*, line.*)
    "workload.command.title": ("Command (your own job)",
                               "命令（您自己的作业）"),
    "workload.command.metric.throughput": ("throughput the log printed (median of its rates after the first few)",
                                           "日志打印的吞吐量（去掉最初几个后的速率中位数）"),
    "workload.command.metric.throughput_unit": ("unit of that throughput, as the log wrote it",
                                                "该吞吐量的单位（按日志原样）"),
    "workload.command.metric.throughput_from": ("which rate the tool printed",
                                                "工具打印的是哪种速率"),
    "workload.command.metric.rates": ("rates in that median",
                                      "参与中位数的速率个数"),
    "workload.command.metric.final_loss": ("last loss the log printed",
                                           "日志打印的最后一个损失"),
    "workload.command.metric.train_samples_per_second": ("samples/s the Trainer reported at the end (train_samples_per_second)",
                                                         "Trainer 结束时报告的 samples/s（train_samples_per_second）"),
    "workload.command.metric.train_runtime": ("training time the Trainer reported (train_runtime)",
                                              "Trainer 报告的训练时间（train_runtime）"),
    "workload.command.metric.eval_loss": ("last evaluation loss the log printed (eval_loss)",
                                          "日志打印的最后评估损失（eval_loss）"),
    "workload.command.metric.exit_code": ("the command's exit code",
                                          "命令的退出码"),
    "workload.command.metric.lines": ("lines the command printed (bar redraws included)",
                                      "命令打印的行数（含进度条重绘）"),
    "workload.command.metric.lines_read": ("lines read for progress",
                                           "用于读取进度的行数"),
    "workload.command.metric.read_by": ("log formats recognised",
                                        "识别出的日志格式"),
    "workload.command.line.final_loss": ("last loss",
                                         "最后损失"),
    "workload.command.line.exit_code": ("exit code",
                                        "退出码"),
}
