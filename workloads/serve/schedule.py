"""When each request of an open-loop level is due: seconds from the level's start, drawn from a seeded generator so
every run and every card gets the same arrivals.

Poisson arrivals (exponential gaps) are shape 1 of gamma-distributed gaps of mean 1/rate, as vLLM's benchmark_serving
``--burstiness`` draws them (vllm-project/vllm, vllm/benchmarks/serve.py, ``get_request``: gamma with shape
burstiness and scale 1 / (rate x burstiness)): under 1 the requests come in bursts with lulls between, over 1 more
evenly than Poisson. The mean rate is the level's either way. The requests are sent at these times whether or not the
ones before have been answered (an open loop), so the client's own delay in sending is measured, never hidden: a
request's latency from its due time is what its user waits (workloads.serve.figures).
"""

from __future__ import annotations

import random

POISSON = 1.0


def arrival_offsets(n: int, rate: float, seed: int, shape: float = POISSON) -> list[float]:
    """``n`` due times (s from the level's start), the first at 0; gaps of mean ``1 / rate``, exponential at shape 1
    (the same draws the sweep made before shapes existed), gamma of ``shape`` otherwise."""
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(n):
        out.append(t)
        t += gap(rng, rate, shape)
    return out


def gap(rng: random.Random, rate: float, shape: float = POISSON) -> float:
    """One gap of the same draw, for a --duration run that draws as it goes."""
    return rng.expovariate(rate) if shape == POISSON else rng.gammavariate(shape, 1.0 / (shape * rate))
