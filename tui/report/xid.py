"""Xid events (NVIDIA's driver error codes) from the kernel log: the stability record nvidia-smi does not keep."""

from __future__ import annotations

from dataclasses import dataclass, field

from workloads.facts.formatting import utc
from workloads.kernel_log import CTIME, ISO, read_dmesg, stamp, xid_lines
from workloads.spec import Text

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
    return [(code, line) for code, _where, line in xid_lines(text)]


def _in_utc(line: str) -> str:
    """The line's stamp as '2026-12-02 21:04:35 UTC' (the report's times); a line whose stamp does not read stays."""
    t = stamp(line)
    if t is None:
        return line
    m = ISO.match(line) or CTIME.match(line)
    return utc(t) + " " + line[m.end():]


def read_kernel_log(timeout: float = 5.0) -> XidReport:
    """Xid lines since boot from `dmesg` (workloads.kernel_log, the soak's reader too), their times in UTC;
    unreadable (no permission, no dmesg) is said, not hidden."""
    log = read_dmesg(timeout)
    if log.text is None:
        return XidReport(False, NO_DMESG if log.problem == "dmesg is not available" else _unreadable(log.problem or ""))
    if not log.dated:
        return XidReport(True, READ_SINCE_BOOT, parse(log.text))
    return XidReport(True, READ_UTC, [(code, _in_utc(line)) for code, line in parse(log.text)])
