"""A sweep's levels as the run.log line, the result's figures and the report's table (torch-free): one set of
cells, so the three never disagree."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.facts.missing import NA
from workloads.spec import Text

# the result's flat figures: those of the sweep's last measured level (the highest concurrency or rate)
HEADLINE = ("output_tokens_per_s", "total_tokens_per_s", "request_throughput", "goodput",
            "ttft_ms_mean", "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_mean", "tpot_ms_p50", "tpot_ms_p99",
            "itl_ms_p50", "itl_ms_p99", "e2el_ms_p50", "e2el_ms_p99", "tokens_from")
COLUMNS: tuple[tuple[str, Text], ...] = (
    ("level", Text("level", "档位")),
    ("requests", Text("requests", "请求数")),
    ("errors", Text("errors", "错误")),
    ("request_throughput", Text("req/s", "请求/秒")),
    ("output_tokens_per_s", Text("output tok/s", "输出 token/秒")),
    ("ttft_ms_p50", Text("TTFT p50 ms", "TTFT p50 毫秒")),
    ("ttft_ms_p99", Text("TTFT p99 ms", "TTFT p99 毫秒")),
    ("tpot_ms_p50", Text("TPOT p50 ms", "TPOT p50 毫秒")),
    ("tpot_ms_p99", Text("TPOT p99 ms", "TPOT p99 毫秒")),
    ("itl_ms_p50", Text("ITL p50 ms", "ITL p50 毫秒")),
    ("e2el_ms_p50", Text("E2E p50 ms", "端到端 p50 毫秒")),
    ("goodput", Text("goodput req/s", "有效吞吐 请求/秒")),
    ("card_util_pct", Text("card util %", "加速卡利用率 %")),
    ("card_mem_peak_bytes", Text("card memory peak GiB", "加速卡显存峰值 GiB")),
    ("card_power_w", Text("card power W", "加速卡功耗 W")),
)


def figure(value: float) -> str:
    """A figure as the table, the run.log line and the summary print it: three significant digits, whole numbers with
    thousands separators from 100 up ('4.12', '57.1', '3,494')."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def cell(row: Mapping[str, Any], key: str) -> str:
    value = row.get(key)
    if key == "card_mem_peak_bytes" and isinstance(value, (int, float)):
        value = value / 2**30
    if value is None:
        return NA
    if isinstance(value, float):
        return figure(value)
    return str(value)


def level_line(row: Mapping[str, Any]) -> str:
    """'concurrency 16: 64 requests, 0 errors, 3.1 req/s, 412 output tok/s, TTFT p50 48.2 ms ...'."""
    parts = [f"{row.get('requests')} requests, {row.get('errors')} errors"]
    parts += [f"{label.en} {cell(row, key)}" for key, label in COLUMNS[3:] if row.get(key) is not None]
    if not row.get("card_samples"):
        parts.append("no card telemetry in the level")
    return f"{row.get('level')}: " + ", ".join(parts) + f" (output tokens from {row.get('tokens_from')})"


def step_label(row: Mapping[str, Any]) -> str:
    """The terminal's progress words for a level: 'concurrency 16: TTFT p50 52.0 ms, TPOT p50 6.24 ms, 0 errors'."""
    return (f"{row.get('level')}: TTFT p50 {cell(row, 'ttft_ms_p50')} ms, TPOT p50 {cell(row, 'tpot_ms_p50')} ms, "
            f"{row.get('errors')} of {row.get('requests')} failed")


def measured(rows: Any) -> list[Mapping[str, Any]]:
    """The levels (or windows) that completed a request: those with figures to read."""
    return [r for r in rows if isinstance(r, dict) and r.get("completed")] if isinstance(rows, list) else []


def result_of(rows: list[dict[str, Any]], settings: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    done = measured(rows)
    last = done[-1] if done else {}
    out: dict[str, Any] = {k: last.get(k) for k in HEADLINE if last.get(k) is not None}
    out.update(settings)
    out.update(at_level=last.get("level"), levels_measured=len(rows), errors=sum(r.get("errors", 0) for r in rows),
               requests=sum(r.get("requests", 0) for r in rows), levels=rows)
    if notes:
        out["notes"] = notes
    return out


_TEST_SERVER = Text("Against cardbench's own test server on this host (no model, no delay): these are the client's "
                    "and the host's figures, not a card's. ",
                    "针对 cardbench 自带的本机测试服务器（无模型、无延迟）：以下是客户端与主机的数字，而非加速卡的。")


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    rows = metrics.get("levels")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    first = _TEST_SERVER if metrics.get("test_server") is True else Text("", "")   # `--test-server`, in the result
    heading = Text(first.en + "Serving sweep: each level's figures (vLLM's definitions; ms per request, percentiles "
                   "over its requests) and the card's telemetry while it ran (utilisation mean, memory peak, power "
                   "mean; n/a: no sample in the level)",
                   first.zh + "服务压测：各档位指标（按 vLLM 定义；毫秒/请求，百分位取自该档位的请求）及该档位运行时的加速卡遥测"
                   "（利用率均值、显存峰值、功耗均值；n/a：该档位内无采样）")
    return heading, [label for _, label in COLUMNS], [[cell(r, key) for key, _ in COLUMNS] for r in rows]
