"""A latency target (``--slo``) and whether a level held it.

``--slo ttft_p99=500,tpot_p99=50[,e2el_p99=MS][,attainment=0.99]``: each limit in ms on one latency (``ttft``,
``tpot``, ``e2el``; ``e2e`` said for the last is taken too), with the share of requests it must hold for named by its
percentile (``_p99``: 99 %; ``_p90``, ``_p50``...; a bare ``ttft=500`` holds for the attainment share). A level holds
the SLO when each limit holds for its share of the level's requests and the requests meeting every limit together
are at least ``attainment`` of them (default: the highest share named, else 0.99), as DistServe and AIPerf count
SLO attainment. A failed request meets no limit. TTFT and end-to-end run from the request's due time, not its send
(workloads.serve.schedule): the user's wait, the client's own queueing in it. Goodput (vLLM's: the requests meeting
the limits per second, from the send) is the same limits in the table (workloads.serve.figures).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from workloads.serve.client import Outcome
from workloads.serve.figures import within

NAMES = {"ttft": "ttft", "tpot": "tpot", "e2el": "e2el", "e2e": "e2el"}
DEFAULT_ATTAINMENT = 0.99
_PART = re.compile(r"^(?P<name>[a-z0-9]+?)(?:_p(?P<q>\d+(?:\.\d+)?))?$")


@dataclass(frozen=True)
class Slo:
    limits: dict[str, float]      # latency -> ms
    shares: dict[str, float]      # latency -> the share of requests its limit holds for
    attainment: float             # the share meeting every limit together
    text: str                     # as the user gave it, for the result

    @classmethod
    def parse(cls, text: str) -> Slo:
        """``ttft_p99=500,tpot_p99=50,attainment=0.99``; ValueError naming what is wrong."""
        limits: dict[str, float] = {}
        quantiles: dict[str, float | None] = {}
        attainment = None
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = (s.strip() for s in part.partition("="))
            key = key.lower()
            number = _number(value)
            if sep and key == "attainment":
                if number is None or not 0 < number <= 1:
                    raise ValueError(f"--slo {text!r}: attainment is a share above 0 and at most 1, e.g. 0.99")
                attainment = number
                continue
            found = _PART.match(key)
            if not sep or not found or found["name"] not in NAMES:
                raise ValueError(f"--slo {text!r}: each part is ttft=MS, tpot=MS or e2el=MS, with a percentile if you "
                                 "like (ttft_p99=MS), or attainment=SHARE")
            name, q = NAMES[found["name"]], found["q"]
            if number is None or not 0 < number < 1e9:
                raise ValueError(f"--slo {text!r}: {key} wants a positive number of milliseconds")
            if q is not None and not 0 < float(q) < 100:
                raise ValueError(f"--slo {text!r}: {key}: a percentile is above 0 and under 100")
            limits[name] = number
            quantiles[name] = float(q) / 100 if q is not None else None
        if not limits:
            raise ValueError(f"--slo {text!r}: give ttft=MS and/or tpot=MS (ttft_p99=MS for a percentile)")
        named = [q for q in quantiles.values() if q is not None]
        attainment = attainment or (max(named) if named else DEFAULT_ATTAINMENT)
        shares = {name: q if q is not None else attainment for name, q in quantiles.items()}
        return cls(limits, shares, attainment, text.strip())


def _number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def verdict(slo: Slo, outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """A level against the SLO: the share meeting each limit and all of them (of every request sent), and whether
    it holds."""
    if not outcomes:
        return {"slo_holds": False, "slo_attained": None}
    each = [within(o, slo.limits, from_due=True) for o in outcomes]
    shares = {name: sum(w[name] for w in each) / len(each) for name in slo.limits}
    together = sum(all(w.values()) for w in each) / len(outcomes)
    holds = together >= slo.attainment and all(shares[n] >= slo.shares[n] for n in slo.limits)
    return {"slo_holds": holds, "slo_attained": together, **{f"slo_{n}_share": s for n, s in shares.items()}}
