"""What the workbench, the headless suite and the report know of the operator-coverage scan (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.opscan.handover import hand_over
from workloads.spec import Metric, Param, SuiteArgs, Text, WorkloadSpec, positive


RUN_FILES = ("ops.csv",)   # what the bundle should carry of a scan's run directory besides the events


def report_table(metrics: Mapping[str, Any]) -> tuple[Text, list[str | Text], list[list[str | Text]]]:
    """The report's compatibility table (heading, columns, rows) from a scan's result metrics (torch-free)."""
    from workloads.opscan.table import compatibility_of_result

    return compatibility_of_result(dict(metrics))


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Cases (a recorded call in a dtype): known once the worker has recorded, from the start event."""
    return positive(config.get("total_steps"))


CPU_NOTE = "no accelerator, so the scan ran on the CPU and timed each case once (not the median of 3)"
# the launcher's fields: empty ones are not passed, so the scan takes its own defaults
FIELDS = (
    Param("dtypes", "dtypes", "--dtypes", "", placeholder="fp32,fp16,bf16 (+tf32 where the device has it)"),
    Param("model", "model", "--model", "", placeholder="built-ins, or MODULE:FUNC"),
    Param("op_timeout", "per-op timeout (s)", "--op-timeout", "60", "int"),
    Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
)

SPEC = WorkloadSpec(
    name="opscan", title=Text("Operator coverage scan", "算子覆盖扫描"), unit="cases/s", headline="cases_per_s",
    short="Op-scan",
    params=FIELDS,
    # not in the quick suite, whose time budget has no room for it (`--workloads opscan` adds it); with its hand_over
    # the suite runs it first and its verdict goes to the workloads it names by source (handover.py)
    suite=SuiteArgs(
        quick=(), standard=(), cpu_quick=("--repeats", "1"), cpu_standard=("--repeats", "1"),
        cpu_quick_note=CPU_NOTE, cpu_standard_note=CPU_NOTE,
        suites=("standard",),
    ),
    progress=Text("case", "用例"),   # a step event counts cases (a recorded call in a dtype)
    has_loss=False,
    metrics=(
        # the headline: one figure for the whole scan, not the steps' windowed rates the summary reads it against
        Metric("cases_per_s", Text("cases/s over the whole scan (cases run / scan time)",
                                   "整个扫描的用例/秒（运行的用例数 / 扫描时间）"), "rate"),
        Metric("ops", Text("aten ops scanned", "扫描的 aten 算子")),
        Metric("calls", Text("recorded calls (op and argument layout)", "记录的调用（算子与参数布局）")),
        Metric("rows_ok", Text("op x dtype: ok", "算子 x 精度：正常")),
        Metric("rows_failed", Text("op x dtype: failed", "算子 x 精度：失败")),
        Metric("precisions_clean", Text("dtypes with no failing op", "无失败算子的精度"), "text"),
        Metric("restarts", Text("worker restarts (crash or hang)", "工作进程重启（崩溃或挂起）")),
        Metric("scan_s", Text("scan time", "扫描时间"), "seconds"),
    ),
    line_metrics=(Metric("rows_failed", Text("op x dtype failed", "失败的算子 x 精度")),),
    planned_steps=planned_steps,
    report_table=report_table, run_files=RUN_FILES,
    hand_over=hand_over,
)
