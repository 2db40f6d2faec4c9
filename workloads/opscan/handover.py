"""The scan's verdict handed to the workloads after it in the headless suite, and the note that says so (torch-free).

The scan names the modules of its built-in sources by source (``resnet50:bn1
(BatchNorm2d)``); a later workload named like one of those sources takes ``--ops-from
<the scan's run dir>`` under ``--amp``: the module types that call an op the scan
found failing in that dtype start in fp32, so nothing has to fall back mid-run. When
the scan did not finish ok, that workload runs as it would without it. Either way
the note says which precision it was given and why. The suite calls :func:`hand_over`
through the spec (``WorkloadSpec.hand_over``) and names no workload.
"""

from __future__ import annotations

from pathlib import Path

from workloads.opscan.sources_names import BUILTINS
from workloads.spec import Text, flag_value

OPS_FROM = "--ops-from"


def hand_over(scan_dir: Path | None, why_not: Text, workload: str, args: list[str]) -> Text | None:
    """Add ``--ops-from`` to a later job's ``args`` when the scan allows it; the note on its precision (None: the
    scan does not name its modules, or its arguments already name a scan)."""
    if workload not in BUILTINS or flag_value(args, OPS_FROM) is not None:
        return None
    amp = flag_value(args, "--amp") or "off"
    if amp == "off":
        return Text("fp32 throughout (--amp off), so the scan's verdict was not needed",
                    "全程 fp32（--amp off），无需使用扫描结论")
    if scan_dir is None:
        return Text(f"{amp} autocast as without a scan, nothing kept in fp32 from the start (an op that fails "
                    f"falls back at run time): {why_not.en}",
                    f"{amp} 自动混合精度，与无扫描时相同，未预先将任何模块保持为 fp32（运行中失败的算子会回退）："
                    f"{why_not('zh')}")
    return _handed(scan_dir, workload, args, amp)


def _handed(scan_dir: Path, workload: str, args: list[str], amp: str) -> Text:
    from workloads.rundir import ops_csv   # the run-dir reader: at a suite's hand-over, not with the registry

    try:
        found = ops_csv.failing(scan_dir, amp, source=workload)  # one read, one module rule for types and ops
        types, ops = sorted(found), sorted(set().union(*found.values()))
    except (OSError, ValueError, KeyError) as exc:
        # the workload would stop on the same unreadable directory: it runs without the verdict instead
        return Text(f"{amp} autocast as without a scan: the scan's run directory could not be read ({exc})",
                    f"{amp} 自动混合精度，与无扫描时相同：无法读取扫描的运行目录（{exc}）")
    args += [OPS_FROM, str(scan_dir)]
    if not types:
        return Text(f"{amp} autocast throughout: the scan found every op {workload} calls ok in {amp}",
                    f"全程 {amp} 自动混合精度：扫描发现 {workload} 调用的算子在 {amp} 下全部正常")
    kept, failing = ", ".join(types), ", ".join(ops)
    return Text(f"{amp} autocast with {kept} kept in fp32 from the first step ({OPS_FROM} the scan's run): "
                f"the scan found {failing} failing in {amp}",
                f"{amp} 自动混合精度，{kept} 从第一步起保持 fp32（{OPS_FROM} 扫描的运行）：扫描发现 {failing} "
                f"在 {amp} 下失败")
