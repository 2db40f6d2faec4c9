"""Every figure a serve result can carry is one its record declares, and every figure it declares is one a path gives:
the result as `Sweep` puts it together for a concurrency sweep with an SLO and notes, a Poisson rate, and a --duration
run (no server: the levels' figures come from outcomes built by hand)."""

from __future__ import annotations

import io

from workloads.child.harness import Emitter
from workloads.protocol import RUN_DIR_ENV
from workloads.result_record import STRICT_ENV
from workloads.serve.cli import build_parser, levels_of
from workloads.serve.client import BROKEN, Endpoint, Outcome
from workloads.serve.ceiling import Ceiling
from workloads.serve.figures import level_figures
from workloads.serve.conversation import Turn, turn_figures
from workloads.serve.load import Request
from workloads.serve.slo import Slo, verdict
from workloads.serve.traffic import SharedPrefix, Traffic, prefix_figures
from workloads.serve.result_record import ServeResult
from workloads.serve.sweep import Sweep
from workloads.serve.table import answer_row, result_of


def _traffic(args) -> dict:
    """The figures a traffic shape adds to a level's row, from the functions the sweep calls."""
    outcomes = [Outcome(ok=True, sent=float(k), ttft=0.1, latency=0.2, chunks=2, itl=[0.1]) for k in range(4)]
    if args.shared_prefix:
        return prefix_figures(SharedPrefix.parse(args.shared_prefix).requests(0, 2), outcomes)
    if args.multi_turn:
        return turn_figures([Turn(0, k, Request("x", 3, 2), o) for k, o in enumerate(outcomes)])
    return {}


def _result(argv: list[str], notes: list[str], found: dict | None = None) -> dict:
    args = build_parser().parse_args(["--url", "http://127.0.0.1:8000/v1", "--model", "m", *argv])
    traffic = Traffic(prefix=SharedPrefix.parse(args.shared_prefix) if args.shared_prefix else None)
    slo = Slo.parse(args.slo) if args.slo else None
    sweep = Sweep(Emitter(stream=io.StringIO()), args, levels_of(args), Endpoint.parse(args.url), slo, None, None,
                  traffic=traffic, test_server_said="ttft 2 ms, itl 0.5 ms" if found else None)
    sweep.ceiling = Ceiling(20_000.0, 900.0) if found else None
    answered = Outcome(ok=True, ttft=0.1, itl=[0.01, 0.02], latency=0.13, chunks=3, output_tokens=3, prompt_tokens=8)
    rows = []
    for level in sweep.levels:
        outcomes = [answered, Outcome(error=BROKEN)]
        row = {"level": level.words(), level.kind: level.value, "t_start": 0.0, "t_end": 1.0,
               **level_figures(outcomes, 1.0, [8, 8], slo.limits if slo else None),
               **(verdict(slo, outcomes) if slo else {}), **_traffic(args)}
        row["client_share"] = sweep.ceiling.share(row) if sweep.ceiling else None
        rows.append({**row, **sweep.card.during(0.0, 1.0)})
    sweep.card.close()
    sweep.requests_csv.close()
    return result_of(rows, {**sweep._settings(), **(found or {})}, notes, answer_row(rows, found or {}))


def test_every_figure_of_a_serve_result_is_declared_and_every_declared_one_given(monkeypatch):
    monkeypatch.delenv(RUN_DIR_ENV, raising=False)
    monkeypatch.delenv(STRICT_ENV)   # the undeclared keys listed, rather than the first one raised
    results = [_result(["--concurrency", "1,4", "--slo", "ttft=500,tpot=50"], ["input length approximate"]),
               _result(["--request-rate", "2"], []),
               _result(["--concurrency", "2", "--duration", "10", "--window", "2"], []),
               _result(["--request-rate", "3", "--burstiness", "0.5"], []),
               _result(["--concurrency", "2", "--shared-prefix", "2,2,8,4"], []),
               _result(["--concurrency", "2", "--multi-turn", "4"], []),
               _result(["--find-max", "--slo", "ttft_p99=500"], [], {
                   "find_max": "rate", "search_stop": "bracket", "search_levels": 6, "saturation_rps": 9.1,
                   "saturation_concurrency": 64, "search_budget_s": 600, "max_rate": 7.5, "missed_rate": 7.8}),
               _result(["--find-max", "concurrency", "--slo", "ttft_p99=500"], [], {
                   "find_max": "concurrency", "search_stop": "bracket", "search_levels": 6,
                   "saturation_rps": 9.1, "saturation_concurrency": 64, "search_budget_s": 600,
                   "max_concurrency_held": 12, "missed_concurrency": 13})]
    for result in results:
        assert ServeResult.of(result).undeclared() == []
    given = {key for result in results for key in result}
    assert given == {f.key for f in ServeResult.figures()}
    sweep, rate, steady = results[:3]
    assert sweep["goodput"] == 1.0 and sweep["concurrency"] == "1,4" and sweep["levels_measured"] == 2
    assert rate["request_rate"] == "2" and "notes" not in rate and "duration_s" not in rate
    assert steady["duration_s"] == 10 and steady["window_s"] == 2
