"""An SLO's verdict on a level, from outcomes built by hand: latencies from each request's due time, a failure meeting
no limit, each limit's own percentile and the share meeting all of them; and the level's due-time figures."""

from __future__ import annotations

import pytest

from workloads.serve.client import Outcome
from workloads.serve.figures import level_figures
from workloads.serve.slo import Slo, verdict


def answered(ttft: float, lag: float = 0.0, tokens: int = 5, gap: float = 0.01) -> Outcome:
    return Outcome(ok=True, sent=10.0 + lag, scheduled=10.0, ttft=ttft, latency=ttft + (tokens - 1) * gap,
                   itl=[gap] * (tokens - 1), chunks=tokens, output_tokens=tokens)


def test_a_percentile_names_the_share_its_limit_holds_for_and_the_highest_is_the_attainment():
    slo = Slo.parse("ttft_p90=200, tpot_p50=20")
    assert slo.limits == {"ttft": 200.0, "tpot": 20.0} and slo.shares == {"ttft": 0.9, "tpot": 0.5}
    assert slo.attainment == 0.9
    assert Slo.parse("ttft=200").attainment == 0.99 and Slo.parse("e2e_p99=900").limits == {"e2el": 900.0}
    assert Slo.parse("ttft_p99=200,attainment=0.95").attainment == 0.95


def test_ttft_is_judged_from_the_due_time_so_the_client_s_queueing_counts():
    slo = Slo.parse("ttft_p99=100")
    on_time = [answered(0.05)] * 100
    assert verdict(slo, on_time)["slo_holds"] is True
    late = [answered(0.05, lag=0.08)] * 100     # sent 80 ms after it was due: its user waited 130 ms
    found = verdict(slo, late)
    assert found["slo_holds"] is False and found["slo_attained"] == 0.0
    figures = level_figures(late, 1.0, [4] * 100)
    assert figures["ttft_ms_p50"] == pytest.approx(50)          # vLLM's, from the send
    assert figures["ttft_sched_ms_p50"] == pytest.approx(130)   # the user's, from the due time
    assert figures["lag_ms_p99"] == pytest.approx(80)
    assert figures["e2el_sched_ms_p50"] == pytest.approx(130 + 40)


def test_a_failed_request_meets_no_limit_and_the_share_is_of_every_request_sent():
    slo = Slo.parse("ttft_p99=100")
    outcomes = [answered(0.05)] * 98 + [Outcome(error="HTTP 400", detail="too long")] * 2
    found = verdict(slo, outcomes)
    assert found["slo_attained"] == 0.98 and found["slo_holds"] is False
    assert verdict(Slo.parse("ttft_p98=100"), outcomes)["slo_holds"] is True


def test_each_limit_holds_for_its_own_share_and_all_together_for_the_attainment():
    slo = Slo.parse("ttft_p50=100,tpot_p50=20,attainment=0.5")
    # half are slow to start, the other half slow between tokens: each limit holds for half, both for none
    outcomes = [answered(0.5)] * 50 + [answered(0.05, gap=0.05)] * 50
    found = verdict(slo, outcomes)
    assert found["slo_ttft_share"] == 0.5 and found["slo_tpot_share"] == 0.5
    assert found["slo_attained"] == 0.0 and found["slo_holds"] is False
    assert verdict(slo, [])["slo_holds"] is False
