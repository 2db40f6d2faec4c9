"""The operator scan's verdict handed to the training run after it in the suite, and the note that says so.

Where the suite runs the scan (opscan) before resnet50 and resnet50 trains under
``--amp``, resnet50 is given ``--ops-from <the scan's run dir>``: the module types
that call an op the scan found failing in that dtype start in fp32, so nothing has
to fall back mid-run. When the scan did not finish ok, resnet50 runs as it would
without it. Either way the report's note says which precision resnet50 was given
and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tui.report.i18n import Note, note
from workloads import registry
from workloads.opscan import statuses as st
from workloads.opscan import table
from workloads.runner import Outcome
from workloads.spec import Text

SCAN = "opscan"
OPS_FROM = "--ops-from"
# the workloads whose --ops-from reads a scan's run directory (the scan names their modules by this source)
TAKES_VERDICT = ("resnet50",)


def flag_value(args: Sequence[str], flag: str) -> str | None:
    """What ``flag`` is given in an argument list (``--flag V`` or ``--flag=V``); the last one wins, as argparse."""
    value = None
    for i, item in enumerate(args):
        if item == flag and i + 1 < len(args):
            value = args[i + 1]
        elif item.startswith(flag + "="):
            value = item.split("=", 1)[1]
    return value


def failing_ops(run_dir: Path, dtype: str, source: str) -> list[str]:
    """The ops that failed in ``dtype`` and are called from a module of ``source`` (what keeps its types in fp32)."""
    prefix = f"{source}:"
    return sorted({row["op"] for row in table.run_rows(run_dir)
                   if row.get("dtype") == dtype and row.get("status") not in (st.OK, "", None)
                   and any(m.startswith(prefix) and not m.startswith(prefix + "(") for m in row.get("modules") or [])})


@dataclass
class Handover:
    """What the suite learnt of the scan, for the jobs after it."""

    scan_dir: Path | None = None
    why_not: Text = Text("the scan did not run before it", "扫描未在它之前运行")

    def scan_finished(self, run_dir: Path | None, outcome: Outcome | None) -> None:
        if run_dir is not None and outcome is not None and outcome.status == "ok":
            self.scan_dir = run_dir
            return
        if outcome is None:
            self.why_not = Text("the scan's run could not be created", "扫描的运行目录无法创建")
            return
        if outcome.status == "stopped":
            self.why_not = Text("the scan was stopped before it finished", "扫描在完成前被停止")
            return
        why = f": {outcome.error_line}" if outcome.error else ""
        self.why_not = Text(f"the scan ended {outcome.status}{why}", f"扫描以 {outcome.status} 结束{why}")

    def prepare(self, workload: str, args: list[str]) -> Note | None:
        """Add ``--ops-from`` to a job's ``args`` when the scan allows it; the note on its precision (None: not one
        of the workloads that take a verdict, or its arguments already name a scan)."""
        if workload not in TAKES_VERDICT or flag_value(args, OPS_FROM) is not None:
            return None
        amp = flag_value(args, "--amp") or "off"
        if amp == "off":
            said = Text("fp32 throughout (--amp off), so the scan's verdict was not needed",
                        "全程 fp32（--amp off），无需使用扫描结论")
        elif self.scan_dir is None:
            said = Text(f"{amp} autocast as without a scan, nothing kept in fp32 from the start (an op that fails "
                        f"falls back at run time): {self.why_not.en}",
                        f"{amp} 自动混合精度，与无扫描时相同，未预先将任何模块保持为 fp32（运行中失败的算子会回退）："
                        f"{self.why_not.zh}")
        else:
            said = self._handed(workload, args, amp)
        return note("note_workload", name=Text(workload, registry.spec_for(workload).title("zh")), note=said)

    def _handed(self, workload: str, args: list[str], amp: str) -> Text:
        assert self.scan_dir is not None
        try:
            types = table.failing_module_types(self.scan_dir, amp, source=workload)
            ops = failing_ops(self.scan_dir, amp, workload)
        except (OSError, ValueError, KeyError) as exc:
            # the workload would stop on the same unreadable directory: it runs without the verdict instead
            return Text(f"{amp} autocast as without a scan: the scan's run directory could not be read ({exc})",
                        f"{amp} 自动混合精度，与无扫描时相同：无法读取扫描的运行目录（{exc}）")
        args += [OPS_FROM, str(self.scan_dir)]
        if not types:
            return Text(f"{amp} autocast throughout: the scan found every op {workload} calls ok in {amp}",
                        f"全程 {amp} 自动混合精度：扫描发现 {workload} 调用的算子在 {amp} 下全部正常")
        kept, failing = ", ".join(types), ", ".join(ops)
        return Text(f"{amp} autocast with {kept} kept in fp32 from the first step ({OPS_FROM} the scan's run): "
                    f"the scan found {failing} failing in {amp}",
                    f"{amp} 自动混合精度，{kept} 从第一步起保持 fp32（{OPS_FROM} 扫描的运行）：扫描发现 {failing} "
                    f"在 {amp} 下失败")
