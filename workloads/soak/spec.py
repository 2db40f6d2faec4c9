"""What the workbench, the report and `cardbench soak` know of the soak (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.spec import Metric, Param, Text, WorkloadSpec

RUN_FILES = ("intervals.csv", "verdict.txt")


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """The per-interval table, the verdict in its heading (torch-free)."""
    from workloads.soak.table import report_table as table

    return table(metrics)


SPEC = WorkloadSpec(
    name="soak",
    title=Text("Soak (hours of one workload, judged per interval)", "长时间稳定性测试（按时段评判）"),
    unit="% drift",
    headline="drift_worst_pct",
    params=(
        Param("hours", "hours", "--hours", "24", placeholder="24 (0.5 = 30 min)"),
        Param("workload", "workload(s)", "--workload", "resnet50", placeholder="resnet50 or resnet50,generate"),
        Param("args", "their arguments", "--args", "", placeholder="'--amp bf16' (quoted as one)"),
        Param("interval", "interval (s)", "--interval", "600", "int"),
    ),
    suite=None,   # hours long: never part of the headless suite
    metrics=(
        Metric("verdict", Text("verdict (rules in verdict.txt)", "结论（规则见 verdict.txt）"), "text"),
        Metric("drift_worst_pct", Text("% worst throughput drift against the first interval",
                                       "相对第一个时段的最大吞吐漂移（%）")),
        Metric("latency_drift_worst_pct", Text("% largest TTFT/TPOT change against the first interval (serving)",
                                               "相对第一个时段的最大 TTFT/TPOT 变化（%，推理服务）")),
        Metric("first_interval_median", Text("first interval's median throughput", "第一个时段的吞吐中位数"), "rate"),
        Metric("hours", Text("hours run", "运行小时数")),
        Metric("runs", Text("runs of the workload", "工作负载运行次数")),
        Metric("restarts", Text("restarts after a failed run", "失败后重启次数")),
        Metric("errors", Text("workload errors", "工作负载错误")),
        Metric("xid_count", Text("Xid lines in the kernel log", "内核日志中的 Xid 行")),
    ),
    line_metrics=(Metric("verdict", Text("verdict", "结论"), "text"),),
    progress=Text("inner step", "内部步"),   # a forwarded step counts the inner workload's steps so far
    report_table=report_table,
    run_files=RUN_FILES,
    verdict="verdict",
    detached=True,   # issue 13: a soak is always detached, from the launcher too
)
