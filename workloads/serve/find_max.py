"""``--find-max [rate|concurrency] --slo ttft_p99=MS,...``: the highest Poisson rate (or concurrency) at which the
server holds the SLO (workloads.serve.slo), and the sentence that says it.

A saturation run first (a closed loop at ``--concurrency N``, default 64, capped by --max-concurrency): the requests/s
it completed are the ceiling of the rates (a server cannot serve more than it completes with every slot busy), and
its concurrency the ceiling of the concurrencies. Then the bracketing search (workloads.serve.search): each level a
row of the table with its verdict, at most ``--max-levels`` of them (default 8), within ``--budget`` seconds (default
600: a level is not started when the time it would take, its requests at its rate and the saturation run's end-to-end
latency to drain, would pass the budget). A level is long enough to be read: its requests are its rate times a
twelfth of the budget (at most 30 s of arrivals), at least 32 (a concurrency's: four per stream at least).
"""

from __future__ import annotations

import math
import time
from typing import Any, Awaitable, Callable

from workloads.child.harness import WorkloadError, log
from workloads.facts.missing import is_finite
from workloads.serve.load import Level
from workloads.serve.answer import answer_message
from workloads.serve.search import Search
from workloads.serve.table import find_max_keys

SATURATION_CONCURRENCY = 64
LEVEL_S_MAX = 30.0
RATE_REQUESTS_MIN = 32

# (index, level, requests, steps, its role in the search: "saturation", "again" or none) -> its row
Probe = Callable[[int, Level, int, int, str], Awaitable[dict[str, Any]]]


def level_seconds(budget_s: float, levels_max: int) -> float:
    """Each level's arrivals last this long: the budget shared by the saturation run and every level, with room."""
    return min(LEVEL_S_MAX, budget_s / (levels_max + 4))


async def find_max(probe: Probe, args: Any) -> dict[str, Any]:
    """The search, run: the figures it adds to the result (the answer, its bracket and why it stopped)."""
    started = time.perf_counter()
    kind, levels_max, budget = args.find_max, args.max_levels, args.budget
    seconds = level_seconds(budget, levels_max)
    c_sat = int(args.concurrency) if args.concurrency else min(args.max_concurrency, SATURATION_CONCURRENCY)
    steps = 1 + levels_max
    sat = await probe(0, Level("concurrency", c_sat), args.requests or max(4 * c_sat, 64), steps, "saturation")
    served, drain = sat.get("request_throughput"), (sat.get("e2el_ms_p50") or 0.0) / 1000
    if not (is_finite(served) and served > 0):
        raise WorkloadError(f"the saturation run at concurrency {c_sat} completed no request: there is no load to "
                            "search below", hint="run.log has its errors", bad_input=False)
    search = Search(served if kind == "rate" else c_sat, levels_max, whole=kind == "concurrency")
    k, rows = 1, {}
    while (value := search.next()) is not None:
        level = Level(kind, value)
        rate = value if kind == "rate" else served * value / c_sat    # the requests/s a concurrency completes
        n = args.requests or (max(RATE_REQUESTS_MIN, math.ceil(value * seconds)) if kind == "rate"
                              else max(4 * int(value), math.ceil(rate * seconds)))
        if time.perf_counter() - started + n / rate + drain > budget:
            search.out_of_time()
            break
        again = any(v == value for v, _ in search.tried)    # the bracket's end probed once more (search.py)
        row = rows[value] = await probe(k, level, n, steps, "again" if again else "")
        search.record(value, bool(row.get("slo_holds")))
        k += 1
    found = {"find_max": kind, "search_stop": search.stop, "search_levels": len(search.tried),
             "saturation_rps": served, "saturation_concurrency": c_sat, "search_budget_s": budget}
    keys = find_max_keys(kind)
    found.update({key: v for key, v in ((keys.held, search.holds), (keys.missed, search.misses)) if v is not None})
    log(f"[cardbench] find-max: {answer_message(found, rows.get(search.misses))}")
    return found
