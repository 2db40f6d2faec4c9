"""The report summary's 'read against' cell of a serve run: the last level beside the first and its bound, never the
median of the steps (each step is a level: a median over concurrency levels measures nothing)."""

from __future__ import annotations

from types import SimpleNamespace

from tui.report.contents import _read_against
from tui.report.i18n import Words
from tui.report.summary import ThroughputStats
from workloads.serve.bounds import read_against


def _level(**kw):
    return {"completed": 10, **kw}


SWEEP = {"levels": [_level(level="concurrency 1", concurrency=1, output_tokens_per_s=200.0, tpot_ms_p50=4.0,
                           ttft_ms_p50=20.0),
                    _level(level="concurrency 16", concurrency=16, output_tokens_per_s=2400.0, tpot_ms_p50=5.0,
                           ttft_ms_p50=30.0, request_throughput=10.0, goodput=7.5)]}


def test_a_concurrency_sweep_is_read_against_its_first_level_and_the_users_bound():
    said = read_against(SWEEP)
    assert said.en == ("12x the output tokens/s at concurrency 1 (200); bound 16x (16 users at that speed); "
                       "TPOT p50 5 ms (4 ms at concurrency 1), TTFT p50 30 ms (20 ms at concurrency 1); "
                       "goodput 7.5 of 10 requests/s met the SLO (75%)")
    assert "的 12 倍；上限 16 倍" in said.zh and "TPOT p50 5 毫秒（并发 1 时为 4 毫秒）" in said.zh


def test_a_rate_sweep_is_read_against_the_rate_offered():
    said = read_against({"levels": [_level(rate=2.0, request_throughput=2.0, tpot_ms_p50=4.0),
                                    _level(rate=8.0, request_throughput=6.0, tpot_ms_p50=9.0)]})
    assert said.en == "6 requests/s served of 8 offered (75%); TPOT p50 9 ms (4 ms at 2 requests/s)"
    assert "提供 8 请求/秒，服务 6（75%）" in said.zh and "2 请求/秒时为 4 毫秒" in said.zh


def test_one_level_levels_not_completed_and_no_levels():
    one = read_against({"levels": [_level(concurrency=4, output_tokens_per_s=100.0, tpot_ms_p50=4.0)]})
    assert one.en == "TPOT p50 4 ms"                     # nothing to read it against but what it cost
    cut = {"levels": [*SWEEP["levels"], {"level": "concurrency 64", "concurrency": 64, "completed": 0}]}
    assert read_against(cut) == read_against(SWEEP)      # a level with no answered request is no figure
    assert read_against({}) is None and read_against({"levels": "junk"}) is None


def test_the_summary_cell_is_the_workloads_words_in_the_reports_language_not_the_step_median():
    # the steps' median (1,300 tokens/s between concurrency 1 and 16) is what the cell said before
    steps = ThroughputStats(unit="tokens/s", n=2, skipped=0, median=1300.0, mean=1300.0, p90=2400.0, min=200.0,
                            max=2400.0)
    summary = SimpleNamespace(workload="serve", metrics=SWEEP, throughput=steps, config={})
    assert _read_against(summary, Words("en")) == read_against(SWEEP).en
    assert _read_against(summary, Words("zh")) == read_against(SWEEP).zh
    summary.metrics = {}
    assert _read_against(summary, Words("en")) == "N/A"


def test_a_search_is_read_at_its_answer_not_at_the_last_level_it_tried_nor_against_the_saturation_run():
    levels = [_level(level="concurrency 64 (saturation)", concurrency=64, output_tokens_per_s=990.0,
                     ttft_ms_p50=900.0, tpot_ms_p50=7.0),
              _level(level="50 requests/s", rate=50.0, request_throughput=48.0, ttft_ms_p50=21.0, tpot_ms_p50=6.5,
                     slo_holds=True),
              _level(level="52.2 requests/s", rate=52.2, request_throughput=44.0, ttft_ms_p50=80.0, tpot_ms_p50=9.0,
                     slo_holds=False)]
    said = read_against({"levels": levels, "find_max": "rate", "search_stop": "bracket", "max_rate": 50.0,
                         "missed_rate": 52.2, "search_levels": 2, "saturation_rps": 62.1,
                         "at_level": "50 requests/s"}).en   # as table.result_of names it
    assert said.startswith("50 requests/s holds the SLO, 52.2 requests/s does not")
    assert "48 requests/s served of 50 offered (96%); TPOT p50 6.5 ms, TTFT p50 21 ms" in said
    assert "900" not in said and "80" not in said
