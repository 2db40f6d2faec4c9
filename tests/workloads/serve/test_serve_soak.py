"""`cardbench soak --workload serve`: each interval holds the TTFT/TPOT p50 and p99 of its runs, per load level, and
the verdict judges their drift against the first interval (issue 27, item 4)."""

from __future__ import annotations

import asyncio

from workloads import protocol
from workloads.runner import Runner
from workloads.soak import table
from workloads.soak.intervals import IntervalBook
from workloads.soak.verdict import judge, rules

T0 = 1_800_000_000.0


def _soak_rows(tpot_at):
    """Three 60 s intervals of a serve run a second at concurrency 16 (and one at 1, which stays put)."""
    book = IntervalBook(T0, 60, T0 + 180)
    for s in range(180):
        tpot = tpot_at(s)
        book.add_step(T0 + s, "serve concurrency 16", 1000.0, "tokens/s",
                      latency={"ttft_ms_p50": 40.0, "ttft_ms_p99": 50.0, "tpot_ms_p50": tpot, "tpot_ms_p99": tpot * 1.2})
        book.add_step(T0 + s + 0.5, "serve concurrency 1", 100.0, "tokens/s",
                      latency={"ttft_ms_p50": 30.0, "tpot_ms_p50": 8.0})
    return book.close_all(T0 + 180)


def test_each_interval_holds_the_median_of_its_runs_latency_per_level_and_its_drift():
    rows = _soak_rows(lambda s: 10.0 if s < 120 else 13.0)     # TPOT p50 +30 % in interval 3
    lat = rows[2]["latency"]["serve concurrency 16"]
    assert lat["tpot_ms_p50"] == 13.0 and abs(lat["tpot_ms_p50_drift_pct"] - 30.0) < 1e-9   # 13 / 10 - 1 in floats
    assert rows[2]["latency"]["serve concurrency 1"]["tpot_ms_p50_drift_pct"] == 0.0
    verdict, findings = judge(rows)
    assert verdict == "FAIL"
    said = [(f.level, f.text) for f in findings if f.rule == "latency"]
    assert [level for level, _ in said] == ["FAIL", "WARN"]    # the p50 fails, the p99 (+30 % too) warns
    assert said[0][1].startswith("serve concurrency 16 TPOT p50 13 ms in interval 3, ")
    assert said[0][1].endswith(": 30.0 % above the first interval's")
    cells = table.flat(rows[2])
    assert cells["tpot_ms"] == "serve concurrency 16 p50 13 / p99 15.6; serve concurrency 1 p50 8"
    assert cells["ttft_ms"] == "serve concurrency 16 p50 40 / p99 50; serve concurrency 1 p50 30"
    assert cells["latency_drift_pct"] == "+30.0"
    _, columns, shown = table.report_table({"intervals": [table.flat(r) for r in rows]})
    assert [c.en for c in columns[5:8]] == ["TTFT ms (median of windows)", "TPOT ms (median of windows)",
                                              "latency drift %"]
    assert shown[2][5:8] == [cells["ttft_ms"], cells["tpot_ms"], "+30.0"] and columns[6]("zh").startswith("每输出")
    # a soak of a workload whose steps carry no latency has no latency columns in the report
    plain = IntervalBook(T0, 60, T0 + 60)
    plain.add_step(T0 + 1, "resnet50", 100.0, "images/s")
    _, columns, shown = table.report_table({"intervals": [table.flat(r) for r in plain.close_all(T0 + 60)]})
    assert "latency drift %" not in [c.en for c in columns] and len(shown[0]) == len(columns)


def test_latency_within_the_limit_or_lower_passes_and_the_rules_say_the_limit():
    def latency(rows, **limit):   # the latency rule's findings (the rows have no device: that warns apart)
        return [(f.level, f.text) for f in judge(rows, **limit)[1] if f.rule == "latency"]

    assert latency(_soak_rows(lambda s: 10.0 if s < 120 else 11.5)) == []    # +15 %: within 20 %
    assert latency(_soak_rows(lambda s: 10.0 if s < 120 else 5.0)) == []     # faster is no fault
    assert [level for level, _ in latency(_soak_rows(lambda s: 10.0 if s < 120 else 11.5), latency_limit_pct=10)] \
        == ["FAIL", "WARN"]
    said = rules(latency_limit_pct=10)
    assert "FAIL: an interval's TTFT or TPOT p50 more than 10 % above the first interval's" in " ".join(said)
    assert table.flat(_soak_rows(lambda s: 10.0)[0])["tpot_ms"].startswith("serve concurrency 16 p50 10 / p99 12")


class _Sink:
    def append(self, event):
        pass

    def log(self, line):
        pass


def test_a_soak_of_serve_is_one_steady_run_that_fails_when_the_server_slows_down(serving, serve_workload):
    """A short soak (3 intervals of 3 s) against a server with set delays: one serve run keeps 2 requests in flight
    for the whole soak (--duration, windows of 0.6 s: a fifth of the interval), no restart between runs; once a
    forwarded step lands in the interval after the first step's (the baseline: a loaded machine may start the inner
    run late) the server's inter-token delay goes from 4 to 60 ms: TPOT p50 rises ~10x, far past the 20 % limit
    whatever the machine's load does to it (a test server paced from this loaded process measured 16 ms, not 4, for
    its first interval once; the old 4 -> 16 ms then rose 56 %, not the 100 % asserted)."""
    with serving(ttft_s=0.02, itl_s=0.004) as server:
        args = ["--hours", str(9 / 3600), "--interval", "3", "--workload", "serve", "--args",
                f"--url {server.url} --concurrency 2 --input-len 8 --output-len 8"]

        async def soak():
            events, t0, first = [], None, None
            async for event in Runner.for_workload("soak", args, run=_Sink()).events():
                events.append(event)
                if isinstance(event, protocol.Start):
                    t0 = event.config["started"]
                elif isinstance(event, protocol.Step) and t0 is not None:
                    interval = int((event.t - t0) // 3)
                    first = interval if first is None else first
                    if interval > first:
                        server.behaviour.itl_s = 0.06
            return events

        events = asyncio.run(asyncio.wait_for(soak(), 120))
    result = next(e for e in events if isinstance(e, protocol.Result)).metrics
    assert events[-1].status == "ok", events[-1]
    # one run for the whole soak: the load never paused for a restart (the old soak ran run after run of --requests)
    assert result["verdict"] == "FAIL" and result["runs"] == 1 and result["restarts"] == 0 and result["errors"] == 0
    windows = [e for e in events if isinstance(e, protocol.Step)]
    assert len({e.extra["inner_step"] for e in windows}) >= 5     # ~14 windows of 0.6 s, at most one forwarded a second
    failed = [f["text"] for f in result["findings"] if (f["level"], f["rule"]) == ("FAIL", "latency")]
    assert failed and all(t.startswith("serve concurrency 2 T") for t in failed)
    assert any(t.startswith("serve concurrency 2 TPOT p50 ") and "interval 3" in t for t in failed)
    first = result["intervals"][0]
    assert first["tpot_ms"].startswith("serve concurrency 2 p50 ") and first["latency_drift_pct"] == "+0.0"
    assert result["latency_drift_worst_pct"] > 100.0


def test_a_level_whose_requests_all_failed_is_booked_under_its_level():
    """A level with no latency (every request failed: 0 tokens/s) was booked under plain 'serve', a series of its
    own whose first reading 0 gave no drift: the failing level escaped the throughput rule."""
    from types import SimpleNamespace

    from workloads.child.harness import Emitter
    from workloads.soak.cli import Soak

    args = SimpleNamespace(hours=1.0, interval=60.0, drift_limit=10.0, thermal_share=0.5, latency_limit=20.0, out=None)
    soak = Soak(Emitter(), [("serve", [])], args, now=1000.0)
    ok = {"level": "concurrency 4", "ttft_ms_p50": 5.0, "tpot_ms_p50": 1.0}
    soak._inner("serve", protocol.Step(step=1, t=1001.0, throughput=100.0, unit="tokens/s", extra=ok))
    soak._inner("serve", protocol.Step(step=2, t=1002.0, throughput=0.0, unit="tokens/s",
                                       extra={"level": "concurrency 4"}))
    window = soak.book._window(1002.0)
    assert window.throughputs == {"serve concurrency 4": [100.0, 0.0]}
