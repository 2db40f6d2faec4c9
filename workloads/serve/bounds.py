"""What a sweep's headline is read against, in the report's summary (torch-free).

The headline is the output tokens/s of the sweep's last level. The median of the run's steps (the summary's
default reading) would be a median over concurrency levels, which measures nothing: each step is a level. A
level's throughput is read instead against the sweep's first level, with its bound:

- concurrency c against concurrency c0: at most c / c0 times c0's tokens/s (each of c users at c0's speed; a
  server only reaches it when batching costs no per-token time), and the TPOT and TTFT p50 that it cost,
  beside c0's (vLLM's definitions: workloads.serve.figures);
- a Poisson rate: the requests/s served against the rate offered (a server that keeps up serves the rate);
- with --slo: the goodput, the share of the requests/s that met every limit;
- a --duration run (one level, a row per window): its last window against its first, which a steady load holds.
"""

from __future__ import annotations

from typing import Any, Mapping

from workloads.facts.missing import is_finite
from workloads.serve.table import figure, measured
from workloads.spec import Text


def _latency(last: Mapping[str, Any], first: Mapping[str, Any] | None, at: str, at_zh: str) -> tuple[str, str]:
    """'TPOT p50 9.38 ms (8.40 ms at concurrency 1), TTFT p50 ...' and its Chinese."""
    en, zh = [], []
    for key, name in (("tpot_ms_p50", "TPOT p50"), ("ttft_ms_p50", "TTFT p50")):
        value = last.get(key)
        if not is_finite(value):
            continue
        base = first.get(key) if first is not None else None
        if is_finite(base):
            en.append(f"{name} {figure(value)} ms ({figure(base)} ms {at})")
            zh.append(f"{name} {figure(value)} 毫秒（{at_zh}为 {figure(base)} 毫秒）")
        else:
            en.append(f"{name} {figure(value)} ms")
            zh.append(f"{name} {figure(value)} 毫秒")
    return ", ".join(en), "，".join(zh)


def read_against(metrics: Mapping[str, Any]) -> Text | None:
    """The summary's 'read against' cell of a serve run, or None when no level was measured."""
    levels = measured(metrics.get("levels"))
    if not levels:
        return None
    first, last = levels[0], levels[-1]
    en: list[str] = []
    zh: list[str] = []
    base = first if first is not last else None
    c0, c = first.get("concurrency"), last.get("concurrency")
    tps0, tps = first.get("output_tokens_per_s"), last.get("output_tokens_per_s")
    steady = is_finite(metrics.get("duration_s"))   # --duration: one level, its windows; the last against the first
    if steady:
        at, at_zh = "in the first window", "第一个时间窗内"
        if base is not None and all(is_finite(v) and v > 0 for v in (tps0, tps)):
            en.append(f"{tps / tps0:.3g}x the output tokens/s {at} ({figure(tps0)}); a steady load holds 1x")
            zh.append(f"输出 token/秒为{at_zh}（{figure(tps0)}）的 {tps / tps0:.3g} 倍；稳定负载应保持 1 倍")
    elif base is not None and all(is_finite(v) and v > 0 for v in (c0, c, tps0, tps)):
        at, at_zh = f"at concurrency {c0:g}", f"并发 {c0:g} 时"
        en.append(f"{tps / tps0:.3g}x the output tokens/s {at} ({figure(tps0)}); bound {c / c0:g}x "
                  f"({c:g} users at that speed)")
        zh.append(f"输出 token/秒为{at_zh}（{figure(tps0)}）的 {tps / tps0:.3g} 倍；上限 {c / c0:g} 倍"
                  f"（{c:g} 个用户都保持该速度）")
    elif is_finite(first.get("rate")):
        at, at_zh = f"at {first['rate']:g} requests/s", f"{first['rate']:g} 请求/秒时"
    else:
        at, at_zh = "at the first level", "第一档时"
    rate, served = last.get("rate"), last.get("request_throughput")   # a level's key is its kind (load.Level)
    if is_finite(rate) and is_finite(served) and rate > 0:
        en.append(f"{figure(served)} requests/s served of {rate:g} offered ({served / rate:.0%})")
        zh.append(f"提供 {rate:g} 请求/秒，服务 {figure(served)}（{served / rate:.0%}）")
    lat_en, lat_zh = _latency(last, base, at, at_zh)
    if lat_en:
        en.append(lat_en)
        zh.append(lat_zh)
    good = last.get("goodput")
    if is_finite(good) and is_finite(served) and served > 0:
        en.append(f"goodput {figure(good)} of {figure(served)} requests/s met the SLO ({good / served:.0%})")
        zh.append(f"有效吞吐：{figure(served)} 请求/秒中 {figure(good)} 满足 SLO（{good / served:.0%}）")
    return Text("; ".join(en), "；".join(zh)) if en else None
