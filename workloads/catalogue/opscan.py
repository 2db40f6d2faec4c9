"""The words of `cardbench run opscan`: ``workload.opscan.<key>``, said by message id (`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the spec (workloads/opscan/spec.py): its title, progress word, notes and the labels of its figures (metric.*, line.*)
    "workload.opscan.title": ("Operator coverage scan",
                              "算子覆盖扫描"),
    "workload.opscan.progress": ("case",
                                 "用例"),
    "workload.opscan.metric.cases_per_s": ("cases/s over the whole scan (cases run / scan time)",
                                           "整个扫描的用例/秒（运行的用例数 / 扫描时间）"),
    "workload.opscan.metric.ops": ("aten ops scanned",
                                   "扫描的 aten 算子"),
    "workload.opscan.metric.calls": ("recorded calls (op and argument layout)",
                                     "记录的调用（算子与参数布局）"),
    "workload.opscan.metric.rows_ok": ("op x dtype: ok",
                                       "算子 x 精度：正常"),
    "workload.opscan.metric.rows_failed": ("op x dtype: failed",
                                           "算子 x 精度：失败"),
    "workload.opscan.metric.precisions_clean": ("dtypes with no failing op",
                                                "无失败算子的精度"),
    "workload.opscan.metric.restarts": ("worker restarts (crash or hang)",
                                        "工作进程重启（崩溃或挂起）"),
    "workload.opscan.metric.scan_s": ("scan time",
                                      "扫描时间"),
    "workload.opscan.line.rows_failed": ("op x dtype failed",
                                         "失败的算子 x 精度"),
    # the scan's verdict handed to a later job of the suite (workloads/opscan/handover.py): the report's note on it
    "workload.opscan.hand_over.amp_off": ("fp32 throughout (--amp off), so the scan's verdict was not needed",
                                          "全程 fp32（--amp off），无需使用扫描结论"),
    "workload.opscan.hand_over.no_scan": ("{amp} autocast as without a scan, nothing kept in fp32 from the start (an op "
                                          "that fails falls back at run time): {why_not}",
                                          "{amp} 自动混合精度，与无扫描时相同，未预先将任何模块保持为 fp32（运行中失败的算子会回退）："
                                          "{why_not}"),
    "workload.opscan.hand_over.unreadable": ("{amp} autocast as without a scan: the scan's run directory could not be "
                                             "read ({error})",
                                             "{amp} 自动混合精度，与无扫描时相同：无法读取扫描的运行目录（{error}）"),
    "workload.opscan.hand_over.all_ok": ("{amp} autocast throughout: the scan found every op {workload} calls ok in {amp}",
                                         "全程 {amp} 自动混合精度：扫描发现 {workload} 调用的算子在 {amp} 下全部正常"),
    "workload.opscan.hand_over.kept": ("{amp} autocast with {kept} kept in fp32 from the first step ({ops_from} the "
                                       "scan's run): the scan found {failing} failing in {amp}",
                                       "{amp} 自动混合精度，{kept} 从第一步起保持 fp32（{ops_from} 扫描的运行）：扫描发现 {failing} "
                                       "在 {amp} 下失败"),
    # the operator scan's statuses (workloads/opscan/statuses.py) and its report table (workloads/opscan/table.py)
    "workload.opscan.status.ok": ("ok", "正常"),
    "workload.opscan.status.mismatch": ("mismatch", "结果不符"),
    "workload.opscan.status.not_implemented": ("not implemented", "未实现"),
    "workload.opscan.status.cpu_fallback": ("CPU fallback", "回退到 CPU"),
    "workload.opscan.status.error": ("error", "出错"),
    "workload.opscan.status.crash": ("crash", "崩溃"),
    "workload.opscan.status.hang": ("hang", "挂起"),
    "workload.opscan.table.heading": ("Operator coverage (failures first)", "算子覆盖（失败在前）"),
    "workload.opscan.table.ops": ("{count} ops", "{count} 个算子"),
    "workload.opscan.column.op": ("op", "算子"),
    "workload.opscan.column.dtype": ("dtype", "精度"),
    "workload.opscan.column.status": ("status", "状态"),
    "workload.opscan.column.nmse": ("NMSE (threshold)", "NMSE（阈值）"),
    "workload.opscan.column.called_from": ("called from", "调用它的模块"),
    "workload.opscan.column.message": ("message", "信息"),
}
