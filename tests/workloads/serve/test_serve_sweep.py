"""The workload against a real HTTP server on 127.0.0.1 with set delays: each figure against the delays it was
given (bounds that hold on a loaded machine: never below the delay, within a generous margin above it)."""

from __future__ import annotations

import io
import json
import re

import pytest

from workloads.child.harness import Emitter, run_main
from workloads.serve.cli import main
from workloads.serve.sweep import stopped_answering
from workloads.serve.table import report_table, requests_table


def run(argv, capsys=None):
    out = io.StringIO()
    code = run_main(main, argv, emitter=Emitter(stream=out))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return code, events


def result(events):
    return next(e["metrics"] for e in events if e["event"] == "result")


SLACK_MS = 400   # what a loaded CI machine may add to a delay


def test_each_figure_matches_the_delays_the_server_was_given(serving):
    with serving(ttft_s=0.15, itl_s=0.03) as server:
        code, events = run(["--url", server.url, "--concurrency", "1,3", "--requests", "6", "--output-len", "5",
                            "--input-len", "20", "--slo", "ttft=5000,tpot=5000"])
    assert code == 0, events
    m = result(events)
    assert m["served_model"] == "test-model" and m["tokens_from"] == "usage" and m["at_level"] == "concurrency 3"
    assert [s["label"].split(":")[0] for s in events if s["event"] == "step"] == ["concurrency 1", "concurrency 3"]
    for row in m["levels"]:
        assert row["completed"] == 6 and row["errors"] == 0 and row["output_tokens"] == 30
        assert row["input_tokens"] == 6 * 20    # the server's /tokenize made the prompts exactly 20 tokens
        # TTFT cannot be under its delay (the server waits that long after reading the request); a gap can be, by
        # what a late token took from it, so gaps are held to half their delay from below
        for name, ms, low in (("ttft", 150, 150), ("tpot", 30, 15), ("itl", 30, 15)):
            for q in ("mean", "p50", "p99"):
                assert low <= row[f"{name}_ms_{q}"] < ms + SLACK_MS, (name, q, row)
        # end-to-end = TTFT + 4 gaps; requests/s and tokens/s are the level's counts over its duration
        assert 150 + 4 * 30 <= row["e2el_ms_p50"] < 270 + SLACK_MS
        assert row["request_throughput"] == pytest.approx(6 / row["duration_s"])
        assert row["output_tokens_per_s"] == pytest.approx(30 / row["duration_s"])
        assert row["total_tokens_per_s"] == pytest.approx(150 / row["duration_s"])
        assert row["goodput"] == row["request_throughput"]
    steps = [e for e in events if e["event"] == "step"]
    assert [s["ttft_ms_p50"] for s in steps] == [r["ttft_ms_p50"] for r in m["levels"]]   # a soak can read them
    one, three = m["levels"]
    assert three["request_throughput"] > 1.5 * one["request_throughput"]   # 3 in flight, not one after another


def _row_in(row, lines):
    """The line that holds the row's cells in order, each set apart by spaces (an aligned table's row)."""
    pattern = re.compile(r"(^|\s)" + r"\s+".join(re.escape(str(c)) for c in row) + r"(\s|$)")
    return next((line for line in lines if pattern.search(line)), None)


def test_the_sweep_ends_its_log_with_the_report_s_table(serving, capsys):
    with serving() as server:
        code, events = run(["--url", server.url, "--concurrency", "1,2", "--requests", "4", "--output-len", "3"])
    assert code == 0
    heading, columns, rows = report_table(result(events))
    log = capsys.readouterr().err.splitlines()
    tail = log[next(i for i, line in enumerate(log) if "concurrency 2: 4 requests" in line) + 1:]   # after the levels
    assert tail[0] == f"[cardbench] {heading.en}"
    assert _row_in([c.en for c in columns], tail), tail   # its units in the labels: "TTFT p50 ms"
    assert [_row_in(r, tail) is not None for r in rows] == [True, True], tail
    assert tail[4] == f"[cardbench] {requests_table(result(events))[0].en}"   # then the requests' table, the next
    assert len(tail) == 3 * 4   # three tables (no traffic shape's): the heading, the labels, a line a level each


def test_chat_without_usage_counts_chunks_and_says_so(serving):
    with serving(usage=False) as server:
        code, events = run(["--url", server.url, "--endpoint", "chat", "--concurrency", "2", "--requests", "4",
                            "--output-len", "7"])
    assert code == 0
    m = result(events)
    assert m["endpoint"] == "/v1/chat/completions" and m["tokens_from"] == "chunks"
    assert m["levels"][0]["output_tokens"] == 28      # the opening role chunk holds no text: not a token
    assert any("no usage field" in n for n in m["notes"])


def test_errors_are_counted_by_kind_never_dropped(serving):
    # the probe is request 1; then every 3rd answers 500 and every 4th stream is cut half-way
    with serving(fail_every=3, break_every=4) as server:
        code, events = run(["--url", server.url, "--concurrency", "2", "--requests", "12", "--output-len", "6"])
    assert code == 0
    row = result(events)["levels"][0]
    assert row["requests"] == 12 and row["completed"] + row["errors"] == 12
    assert row["errors_by_kind"] == {"HTTP 500": 4, "broken stream": 2}   # requests 3,6,9,12 / 4 and 8 (not 12)
    warning = next(e for e in events if e["event"] == "warning")
    assert "6 of 12 requests failed" in warning["message"] and "internal error (on demand)" in warning["message"]


@pytest.mark.parametrize("status", [400, 422])   # 422: FastAPI's answer to a field it does not know (transformers serve)
def test_a_server_that_refuses_ignore_eos_is_asked_without_it(serving, status):
    with serving(refuse_ignore_eos=status) as server:
        code, events = run(["--url", server.url, "--concurrency", "1", "--requests", "2", "--output-len", "3"])
    m = result(events)
    assert code == 0 and m["ignore_eos"] is False and m["levels"][0]["completed"] == 2
    assert any("refused ignore_eos" in n for n in m["notes"])


def test_a_server_streaming_like_transformers_serve(serving):
    """What `transformers serve` did to the sweep (bench/serve_real_server.py): ignore_eos refused with 422, no
    ``data: [DONE]``, a chat stream holding 4 tokens a chunk. The usage field counts the tokens; a note says so."""
    with serving(refuse_ignore_eos=422, done_marker=False, tokens_per_chunk=4, itl_s=0.002) as server:
        code, events = run(["--url", server.url, "--endpoint", "chat", "--concurrency", "2", "--requests", "4",
                            "--output-len", "8"])
    m = result(events)
    row = m["levels"][0]
    assert code == 0 and m["ignore_eos"] is False and row["completed"] == 4 and row["errors"] == 0
    assert (row["output_tokens"], row["chunks"], row["tokens_from"]) == (32, 8, "usage")
    assert row["tpot_ms_p50"] >= 1.0    # 7 gaps of 2 ms spread over the 8 tokens: (e2e - ttft) / 7
    assert any(n.startswith("concurrency 2: the server streamed 32 tokens in 8 chunks") for n in m["notes"])


def test_poisson_arrivals_at_a_set_rate(serving):
    with serving() as server:
        code, events = run(["--url", server.url, "--request-rate", "200,400", "--requests", "20", "--output-len", "2"])
    m = result(events)
    assert code == 0 and m["request_rate"] == "200,400"
    assert [r["level"] for r in m["levels"]] == ["200 requests/s", "400 requests/s"]
    assert all(r["completed"] == 20 for r in m["levels"])


def test_the_server_dying_mid_sweep_ends_it_with_the_levels_so_far(serving, capsys):
    # the probe and the first level's 4 requests, then the server is gone. --timeout: a request left unanswered by
    # the dying server (asyncio's Server left one so: test_serve_testserver_death.py) fails here in seconds, not
    # after the default 600 s, which a wrapping `timeout` cut short with SIGTERM (the run then said "stopped", 143)
    with serving(die_after=5) as server:
        code, events = run(["--url", server.url, "--concurrency", "1,2,4", "--requests", "4", "--output-len", "2",
                            "--timeout", "30"])
    assert code == 1
    m = result(events)
    assert [r["level"] for r in m["levels"]] == ["concurrency 1", "concurrency 2"]
    assert m["levels"][0]["completed"] == 4 and m["levels"][1]["completed"] == 0
    error = next(e for e in events if e["event"] == "error")
    assert "stopped answering at concurrency 2" in error["message"] and "2 level(s)" in error["message"]
    assert events[-1]["status"] == "failed"
    log = capsys.readouterr().err.splitlines()   # the levels so far, as the report's table, ended the log too
    assert [_row_in(r, log) is not None for r in report_table(m)[2]] == [True, True], log


@pytest.mark.parametrize("kinds, gone", [
    ({"connection refused or reset": 4}, True),
    ({"connection refused or reset": 3, "broken stream": 1}, True),    # a connection it dropped as it died
    ({"broken stream": 4}, False),          # up, but cutting its streams: the sweep goes on, counting them
    ({"connection refused or reset": 2, "timeout": 2}, False),
])
def test_a_level_with_no_answer_ends_the_sweep_when_the_server_is_gone(kinds, gone):
    assert stopped_answering({"completed": 0, "errors_by_kind": kinds}) is gone
    assert not stopped_answering({"completed": 1, "errors_by_kind": kinds})


def test_a_stop_mid_level_keeps_the_requests_answered_so_far(serving):
    import signal
    import subprocess
    import sys
    import time

    with serving(itl_s=0.02) as server:
        child = subprocess.Popen([sys.executable, "-m", "workloads.serve", "--url", server.url, "--concurrency", "1",
                                  "--requests", "1000", "--output-len", "10"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        # the probe and two requests of the level done, whatever the machine's speed
        while sum(s.tokens == 10 for s in list(server.timestamps.values())) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=30)
    events = [json.loads(line) for line in out.splitlines()]
    assert events[-1]["status"] == "stopped" and "Traceback" not in err
    (row,) = result(events)["levels"]
    assert row["level"] == "concurrency 1 (stopped)" and 2 <= row["completed"] < 1000 and row["errors"] == 0
    assert row["tpot_ms_p50"] >= 10


def test_each_table_a_user_pastes_fits_120_columns(serving):
    """The serve tables, as `cardbench run serve` prints them: one table of every figure ran 233 columns wide and a
    log pane wrapped it into fragments. A real sweep with an SLO (its goodput and verdict columns), each level given
    the card's telemetry a GPU host would add; every header and row within 120 columns, every level in each table."""
    from workloads.facts.text_table import text_lines
    from workloads.serve.result_record import ServeResult

    with serving() as server:
        code, events = run(["--url", server.url, "--concurrency", "1,64", "--requests", "64", "--output-len", "3",
                            "--slo", "ttft=5000,tpot=5000"])
    assert code == 0
    m = result(events)
    m = {**m, "levels": [{**r, "card_util_pct": 99.5, "card_mem_peak_bytes": 79.6 * 2**30, "card_power_w": 699.9,
                          "client_share": 0.5432} for r in m["levels"]]}
    tables = [printer(m) for printer in ServeResult.table_printers()]
    for heading, columns, rows in tables:
        lines = text_lines(heading, columns, rows)[1:]   # the heading is a sentence, which wraps between words
        assert all(len(line) <= 120 for line in lines), "\n".join(lines)
    shown = {c.en for _, columns, rows in tables if rows for c in columns}
    assert {"TTFT p99 from due ms", "goodput req/s", "SLO (share met)", "card power W", "client load %"} <= shown
    assert [len(rows) for _, _, rows in tables] == [2, 2, 2, 0]   # no traffic shape: its table has no rows
