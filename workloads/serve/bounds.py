"""What a sweep's headline is read against, in the report's summary (torch-free).

The headline is the output tokens/s of the result's level (--find-max's answer, else the sweep's last). The median of the run's steps (the summary's
default reading) would be a median over concurrency levels, which measures nothing: each step is a level. A
level's throughput is read instead against the sweep's first level, with its bound:

- concurrency c against concurrency c0: at most c / c0 times c0's tokens/s (each of c users at c0's speed; a
  server only reaches it when batching costs no per-token time), and the TPOT and TTFT p50 that it cost,
  beside c0's (vLLM's definitions: workloads.serve.figures);
- a Poisson rate: the requests/s served against the rate offered (a server that keeps up serves the rate);
- with --slo: the goodput, the share of the requests/s that met every limit;
- a --duration run (one level, a row per window): its last window against its first, which a steady load holds;
- --find-max: its answer first (workloads.serve.answer), then the answering level's figures alone (the levels before it
  are the search's probes, not a sweep to read it against).
"""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Joined, Message, message
from workloads.facts.missing import is_finite
from workloads.serve.answer import answer_message
from workloads.serve.table import answer_row, figure, measured


def _latency(last: Mapping[str, Any], first: Mapping[str, Any] | None, at: Message) -> Joined:
    """'TPOT p50 9.38 ms (8.40 ms at concurrency 1), TTFT p50 ...' in either language."""
    said = []
    for key, name in (("tpot_ms_p50", "TPOT p50"), ("ttft_ms_p50", "TTFT p50")):
        value = last.get(key)
        if not is_finite(value):
            continue
        base = first.get(key) if first is not None else None
        if is_finite(base):
            said.append(message("workload.serve.against.latency_vs", name=name, value=figure(value),
                                base=figure(base), at=at))
        else:
            said.append(message("workload.serve.against.latency", name=name, value=figure(value)))
    return Joined(tuple(said), comma=True)


def read_against(metrics: Mapping[str, Any]) -> Joined | None:
    """The summary's 'read against' cell of a serve run, or None when no level was measured."""
    levels = measured(metrics.get("levels"))
    if not levels:
        return None
    first, last = levels[0], levels[-1]
    said: list[Message | Joined] = []
    base = first if first is not last else None
    if metrics.get("search_stop"):    # --find-max: the result's level (its answer, else the last tried), against no
        at_level = metrics.get("at_level")   # other; the answer leads, the figures after it are its level's
        last, base = next((r for r in reversed(levels) if r.get("level") == at_level), last), None
        said.append(answer_message(metrics, answer_row(metrics.get("levels"), metrics, missed=True)))
    c0, c = first.get("concurrency"), last.get("concurrency")
    tps0, tps = first.get("output_tokens_per_s"), last.get("output_tokens_per_s")
    steady = is_finite(metrics.get("duration_s"))   # --duration: one level, its windows; the last against the first
    if steady:
        at = message("workload.serve.against.at_first_window")
        if base is not None and all(is_finite(v) and v > 0 for v in (tps0, tps)):
            said.append(message("workload.serve.against.steady", ratio=f"{tps / tps0:.3g}", at=at, base=figure(tps0)))
    elif base is not None and all(is_finite(v) and v > 0 for v in (c0, c, tps0, tps)):
        at = message("workload.serve.against.at_concurrency", c0=f"{c0:g}")
        said.append(message("workload.serve.against.concurrency", ratio=f"{tps / tps0:.3g}", at=at,
                            base=figure(tps0), bound=f"{c / c0:g}", c=f"{c:g}"))
    elif is_finite(first.get("rate")):
        at = message("workload.serve.against.at_rate", rate=f"{first['rate']:g}")
    else:
        at = message("workload.serve.against.at_first_level")
    rate, served = last.get("rate"), last.get("request_throughput")   # a level's key is its kind (load.Level)
    if is_finite(rate) and is_finite(served) and rate > 0:
        said.append(message("workload.serve.against.served", served=figure(served), rate=f"{rate:g}",
                            share=f"{served / rate:.0%}"))
    latency = _latency(last, base, at)
    if latency.items:
        said.append(latency)
    good = last.get("goodput")
    if is_finite(good) and is_finite(served) and served > 0:
        said.append(message("workload.serve.against.goodput", good=figure(good), served=figure(served),
                            share=f"{good / served:.0%}"))
    return Joined(tuple(said)) if said else None
