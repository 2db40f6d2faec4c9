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
from workloads.serve.figures import level_figures, parse_slo
from workloads.serve.result_record import ServeResult
from workloads.serve.sweep import Sweep
from workloads.serve.table import result_of


def _result(argv: list[str], notes: list[str]) -> dict:
    args = build_parser().parse_args(["--url", "http://127.0.0.1:8000/v1", "--model", "m", *argv])
    slo = parse_slo(args.slo) if args.slo else None
    sweep = Sweep(Emitter(stream=io.StringIO()), args, levels_of(args), Endpoint.parse(args.url), slo, None, None)
    answered = Outcome(ok=True, ttft=0.1, itl=[0.01, 0.02], latency=0.13, chunks=3, output_tokens=3, prompt_tokens=8)
    rows = []
    for level in sweep.levels:
        row = {"level": level.words(), level.kind: level.value, "t_start": 0.0, "t_end": 1.0,
               **level_figures([answered, Outcome(error=BROKEN)], 1.0, [8, 8], slo)}
        rows.append({**row, **sweep.card.during(0.0, 1.0)})
    sweep.card.close()
    return result_of(rows, sweep._settings(), notes)


def test_every_figure_of_a_serve_result_is_declared_and_every_declared_one_given(monkeypatch):
    monkeypatch.delenv(RUN_DIR_ENV, raising=False)
    monkeypatch.delenv(STRICT_ENV)   # the undeclared keys listed, rather than the first one raised
    results = [_result(["--concurrency", "1,4", "--slo", "ttft=500,tpot=50"], ["input length approximate"]),
               _result(["--request-rate", "2"], []),
               _result(["--concurrency", "2", "--duration", "10", "--window", "2"], [])]
    for result in results:
        assert ServeResult.of(result).undeclared() == []
    given = {key for result in results for key in result}
    assert given == {f.key for f in ServeResult.figures()}
    sweep, rate, steady = results
    assert sweep["goodput"] == 1.0 and sweep["concurrency"] == "1,4" and sweep["levels_measured"] == 2
    assert rate["request_rate"] == "2" and "notes" not in rate and "duration_s" not in rate
    assert steady["duration_s"] == 10 and steady["window_s"] == 2
