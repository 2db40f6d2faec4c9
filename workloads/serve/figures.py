"""The figures of one load level, as vLLM's serving benchmark defines them.

Source: vllm-project/vllm, vllm/benchmarks/serve.py, ``calculate_metrics``: per successful request,
TPOT = (latency - TTFT) / (output tokens - 1) when it has more than one token; ITL is every gap between
chunks with text, pooled over the requests; E2EL is the request's latency; request throughput is the
completed requests over the level's duration, output tokens/s their output tokens over it, total tokens/s
input and output tokens over it; goodput is the requests that met every SLO given (TTFT and TPOT, in ms;
a one-token request's TPOT counts as 0, as there) over the duration. Means, p50, p90 and p99 are in ms,
percentiles linear (numpy's default, which vLLM uses; workloads.facts.percentile holds ours).

Beside them, the same TTFT and end-to-end from each request's due time (``ttft_sched``, ``e2el_sched``: its
Poisson or trace arrival, or a closed loop's worker free; workloads.serve.schedule) and the gap between the two
(``lag``: the client's own queueing, its in-flight cap and its thread). vLLM's TTFT starts at the send and so left
the wait for its --max-concurrency semaphore out (vllm-project/vllm issue 54101; PR 54136 added a queue-inclusive
E2EL beside it); a --slo verdict reads the due-time figures (workloads.serve.slo).
"""

from __future__ import annotations

from collections import Counter
from statistics import fmean
from typing import Any, Sequence

from workloads.facts.percentile import percentile
from workloads.serve.client import Outcome

PERCENTILES = (50, 90, 99)
LATENCIES = ("ttft", "tpot", "itl", "e2el")   # the figures in ms, each with mean and PERCENTILES
SCHEDULED = ("ttft_sched", "e2el_sched", "lag")   # from the due time, and due -> sent: p50 and p99


def tpot(o: Outcome) -> float | None:
    tokens = o.tokens
    if o.latency is None or o.ttft is None or tokens <= 1:
        return None
    return (o.latency - o.ttft) / (tokens - 1)


def level_figures(outcomes: Sequence[Outcome], duration_s: float, input_tokens: Sequence[int],
                  slo_ms: dict[str, float] | None = None) -> dict[str, Any]:
    """One level's figures: ``input_tokens`` is each request's prompt length as sent (the usage field's
    count replaces it where the server gave one)."""
    done = [o for o in outcomes if o.ok]
    errors = Counter(o.error or "unknown" for o in outcomes if not o.ok)
    prompt = sum(o.prompt_tokens if o.prompt_tokens is not None else asked
                 for o, asked in zip(outcomes, input_tokens) if o.ok)
    output = sum(o.tokens for o in done)
    usage = sum(o.output_tokens is not None for o in done)
    out: dict[str, Any] = {
        "requests": len(outcomes), "completed": len(done), "errors": sum(errors.values()),
        "errors_by_kind": dict(sorted(errors.items())), "duration_s": duration_s,
        "input_tokens": prompt, "output_tokens": output, "chunks": sum(o.chunks for o in done),
        "tokens_from": "usage" if done and usage == len(done) else "chunks" if not usage else "usage and chunks",
    }
    rate = (lambda n: n / duration_s) if duration_s > 0 else (lambda n: None)
    out.update(request_throughput=rate(len(done)), output_tokens_per_s=rate(output),
               total_tokens_per_s=rate(prompt + output))
    samples = {"ttft": [o.ttft for o in done], "tpot": [t for t in map(tpot, done) if t is not None],
               "itl": [gap for o in done for gap in o.itl], "e2el": [o.latency for o in done]}
    for name in LATENCIES:
        values = [v * 1000 for v in samples[name] if v is not None]
        out[f"{name}_ms_mean"] = fmean(values) if values else None
        for q in PERCENTILES:
            out[f"{name}_ms_p{q}"] = percentile(values, q)
    waited = {"ttft_sched": [o.ttft_due for o in done if o.ttft_due is not None],
              "e2el_sched": [o.e2el_due for o in done if o.e2el_due is not None],
              "lag": [o.lag for o in outcomes]}
    for name in SCHEDULED:
        for q in (50, 99):
            out[f"{name}_ms_p{q}"] = percentile([v * 1000 for v in waited[name]], q)
    if slo_ms:
        good = sum(all(within(o, slo_ms).values()) for o in done)
        out.update(good_requests=good, goodput=rate(good))
    return out


def within(o: Outcome, limits_ms: dict[str, float], from_due: bool = False) -> dict[str, bool]:
    """Whether one request met each limit (ms; ``ttft``, ``tpot``, ``e2el``): TTFT and end-to-end from its send
    (vLLM's goodput) or from its due time (``from_due``: a --slo verdict). A one-token request's TPOT counts as 0 (no
    gap to miss); a failed request meets no limit."""
    if not o.ok:
        return dict.fromkeys(limits_ms, False)
    measured = {"ttft": o.ttft_due if from_due else o.ttft, "tpot": tpot(o) or 0.0,
                "e2el": o.e2el_due if from_due else o.latency}
    return {k: measured[k] is not None and measured[k] * 1000 <= limit for k, limit in limits_ms.items()}
