"""The readiness cells as the report's table, in English and Chinese (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.facts.formatting import percent
from workloads.facts.missing import NA
from workloads.spec import Text

COLUMNS: tuple[tuple[str, Text], ...] = (
    ("input_len", Text("input", "输入")),
    ("output_len", Text("output", "输出")),
    ("batch", Text("batch", "批")),
    ("ttft_ms", Text("TTFT ms", "首 token 毫秒")),
    ("tpot_p50_ms", Text("TPOT p50 ms", "TPOT p50 毫秒")),
    ("tpot_p90_ms", Text("TPOT p90 ms", "TPOT p90 毫秒")),
    ("tpot_p99_ms", Text("TPOT p99 ms", "TPOT p99 毫秒")),
    ("decode_tokens_per_s", Text("decode tok/s per seq", "每序列解码 token/秒")),
    ("decode_tokens_per_s_all", Text("decode tok/s all", "全部解码 token/秒")),
    ("decode_bound_tokens_per_s", Text("decode bound tok/s (read bandwidth)", "解码上限 token/秒（读带宽）")),
    ("decode_bandwidth_fraction", Text("of bandwidth", "带宽占比")),
    ("prefill_tokens_per_s", Text("prefill tok/s", "预填充 token/秒")),
    ("prefill_peak_fraction", Text("of rated peak FLOP/s", "占额定峰值 FLOP/s")),
    ("end_to_end_s", Text("end-to-end s", "端到端 秒")),
    ("peak_memory_gib", Text("peak memory GiB", "峰值内存 GiB")),
    ("estimate_gib", Text("fit estimate GiB", "估算内存 GiB")),
    ("status", Text("status", "状态")),
)


def _value(row: Mapping[str, Any], key: str) -> Any:
    if key.endswith("_ms"):
        base = row.get(key[:-3] + "_s")
        return base * 1000 if isinstance(base, (int, float)) else None
    if key.endswith("_gib"):
        base = row.get("peak_memory_bytes" if key.startswith("peak") else "estimate_bytes")
        return base / 2**30 if isinstance(base, (int, float)) else None
    return row.get(key)


def cell(row: Mapping[str, Any], key: str) -> str:
    value = _value(row, key)
    if value is None:
        return NA
    if key.endswith("_fraction") and isinstance(value, (int, float)):
        return percent(value)   # as the report's tables say a share: 16.5 %, not 16%
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"
    return str(value)


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    rows = metrics.get("cells")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    kind = str(metrics.get("peak_memory_kind") or NA)
    kind_zh = ("进程峰值 RSS 减去构建模型前的 RSS" if kind.startswith("process peak RSS")
               else "设备分配峰值（max_memory_allocated）" if kind.startswith("device") else kind)
    heading = Text(
        f"Readiness cells (input x output tokens x batch): TTFT median of the timed runs, TPOT percentiles over "
        f"every decode step, decode against the read-bandwidth bound (weights + KV cache read a step), prefill "
        f"against the dtype's rated peak (n/a: none rated, as on the CPU); peak memory: {kind}",
        f"就绪度单元（输入 x 输出 token x 批）：首 token 时间取计时运行中位数，TPOT 百分位取全部解码步，解码对照读带宽上限"
        f"（每步读取的权重 + KV 缓存），预填充对照该精度的额定峰值（n/a：无额定值，如 CPU）；峰值内存：{kind_zh}")
    return heading, [label for _, label in COLUMNS], [[cell(r, key) for key, _ in COLUMNS] for r in rows]
