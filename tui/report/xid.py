"""Xid events (NVIDIA's driver error codes) from the kernel log: the stability record nvidia-smi does not keep."""

from __future__ import annotations

import calendar
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime

from tui.formatting import utc
from tui.telemetry.cli_tool import run_bounded
from workloads.spec import Text

_XID = re.compile(r"NVRM: Xid \((?P<where>[^)]*)\): (?P<code>\d+),")
# the codes a reviewer asks about, and what they usually mean (NVIDIA's Xid catalogue)
MEANING = {
    13: Text("graphics engine exception (often an application bug or bad memory access)",
             "图形引擎异常（通常是应用程序错误或非法内存访问）"),
    31: Text("GPU memory page fault (MMU fault)", "GPU 内存页错误（MMU 故障）"),
    43: Text("GPU stopped processing (user application fault)", "GPU 停止处理（用户程序故障）"),
    45: Text("preemptive cleanup after another error", "其他错误之后的抢占式清理"),
    48: Text("double-bit ECC error", "双比特 ECC 错误"),
    61: Text("internal micro-controller breakpoint/warning", "内部微控制器断点/警告"),
    62: Text("internal micro-controller halt", "内部微控制器停机"),
    63: Text("ECC page retirement or row remapping recorded", "已记录 ECC 页退役或行重映射"),
    64: Text("ECC page retirement or row remapping failure", "ECC 页退役或行重映射失败"),
    74: Text("NVLink error", "NVLink 错误"),
    79: Text("GPU has fallen off the bus", "GPU 已从总线上掉线"),
    92: Text("high single-bit ECC error rate", "单比特 ECC 错误率过高"),
    94: Text("contained ECC error", "已隔离的 ECC 错误"),
    95: Text("uncontained ECC error", "未隔离的 ECC 错误"),
    109: Text("context switch timeout", "上下文切换超时"),
    119: Text("GSP RPC timeout", "GSP RPC 超时"),
    120: Text("GSP error", "GSP 错误"),
}

# how the kernel log was read, said in the report's sentence about Xid events
READ_UTC = Text("read with dmesg, since boot; times in UTC", "用 `dmesg` 读取，自开机起；时间为 UTC")
READ_SINCE_BOOT = Text("read with dmesg, since boot; times in seconds since boot",
                       "用 `dmesg` 读取，自开机起；时间为开机后的秒数")
NO_DMESG = Text("dmesg is not available: Xid events could not be checked", "没有 `dmesg`：无法检查 Xid 事件")


def _unreadable(problem: str) -> Text:
    return Text(f"the kernel log is not readable ({problem}): Xid events could not be checked",
                f"内核日志不可读（`{problem}`）：无法检查 Xid 事件")


@dataclass
class XidReport:
    readable: bool
    note: Text      # how the log was read, or why it could not be
    events: list[tuple[int, str]] = field(default_factory=list)  # (code, the log line)

    @property
    def counts(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for code, _line in self.events:
            out[code] = out.get(code, 0) + 1
        return out


def parse(text: str) -> list[tuple[int, str]]:
    return [(int(m.group("code")), line.strip()) for line in text.splitlines() if (m := _XID.search(line))]


# dmesg's stamps, asked for in UTC: ISO 8601 with the offset (util-linux >= 2.24), else ctime ("-T")
_ISO = re.compile(r"^(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)[,.]\d+(?P<zone>[+-]\d\d:?\d\d) ")
_CTIME = re.compile(r"^\[(?P<at>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ")


def _iso_utc(m: re.Match[str]) -> str:
    return utc(datetime.fromisoformat(m["at"] + m["zone"]).timestamp()) + " "


def _ctime_utc(m: re.Match[str]) -> str:
    return utc(calendar.timegm(time.strptime(m["at"], "%a %b %d %H:%M:%S %Y"))) + " "


def _stamps_in_utc(text: str, stamp: re.Pattern[str], to_utc) -> str:
    """Each line's stamp as '2026-12-02 21:04:35 UTC'; a line whose stamp does not read stays as it is."""
    out = []
    for line in text.splitlines():
        try:
            out.append(stamp.sub(to_utc, line, count=1))
        except ValueError:
            out.append(line)
    return "\n".join(out)


def read_kernel_log(timeout: float = 5.0) -> XidReport:
    """Xid lines since boot from `dmesg`, their times in UTC; unreadable (no permission, no dmesg) is said,
    not hidden."""
    if not shutil.which("dmesg"):
        return XidReport(False, NO_DMESG)
    env = {**os.environ, "TZ": "UTC", "LC_ALL": "C"}  # the stamps in UTC, the month names in English
    note = READ_UTC
    done = run_bounded(["dmesg", "--time-format=iso"], timeout, env=env)
    text = _stamps_in_utc(done.stdout, _ISO, _iso_utc) if done.returncode == 0 else ""
    if done.returncode not in (0, None):  # an older dmesg without ISO stamps
        done = run_bounded(["dmesg", "-T"], timeout, env=env)
        text = _stamps_in_utc(done.stdout, _CTIME, _ctime_utc) if done.returncode == 0 else ""
    if done.returncode not in (0, None):  # some dmesg builds have no -T
        done = run_bounded(["dmesg"], timeout, env=env)
        text, note = done.stdout, READ_SINCE_BOOT
    if done.problem is not None:
        return XidReport(False, _unreadable(done.problem))
    return XidReport(True, note, parse(text))
