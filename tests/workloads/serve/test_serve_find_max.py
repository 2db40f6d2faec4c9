"""--find-max against the test server set to a known capacity (a few slots, small delays: seconds), the per-request
rows it writes (requests.csv), the answers when no level or every level holds the SLO, the server's 400 for a request
too long counted with its words, and the arguments it refuses."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tui import cli
from tui.figures import result_text
from workloads.child.harness import Emitter, run_main
from workloads.protocol import RUN_DIR_ENV
from workloads.serve.answer import report_table
from workloads.serve.table import busy_table
from workloads.serve.cli import main
from workloads.serve.requests_csv import COLUMNS, REQUESTS_CSV
from workloads.serve.search import BRACKET, CEILING, LEVELS, NONE_MEETS


def run(argv):
    out = io.StringIO()
    code = run_main(main, argv, emitter=Emitter(stream=out))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return code, next((e["metrics"] for e in events if e["event"] == "result"), None), events


# 2 slots, each request 5 ms to its first token and 3 gaps of 1 ms: ~250 requests/s at most
CAPACITY = {"slots": 2, "ttft_s": 0.005, "itl_s": 0.001}
SHORT = ["--output-len", "4", "--input-len", "8", "--concurrency", "8", "--budget", "4", "--max-levels", "4"]


def test_the_search_finds_a_bracket_below_the_saturation_run_with_a_row_and_verdict_a_level(serving, tmp_path,
                                                                                             monkeypatch):
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    with serving(**CAPACITY) as server:
        code, m, events = run(["--url", server.url, *SHORT, "--find-max", "--slo", "ttft_p99=40,tpot_p99=40"])
    assert code == 0
    assert m["find_max"] == "rate" and m["search_stop"] in (BRACKET, LEVELS, CEILING)
    rows = m["levels"]
    assert rows[0]["level"] == "concurrency 8 (saturation)" and m["saturation_rps"] == rows[0]["request_throughput"]
    assert all("slo_holds" in r and r["rate"] > 0 for r in rows[1:]) and len(rows) <= 1 + 4
    assert m["search_levels"] == len(rows) - 1
    if m["search_stop"] != CEILING:
        assert m["max_rate"] < m["missed_rate"] <= m["saturation_rps"] * 1.005
        held = next(r for r in rows if r.get("rate") == m["max_rate"])
        assert held["slo_holds"] and m["at_level"] == held["level"]     # the headline is the answer's level's
        assert m["output_tokens_per_s"] == held["output_tokens_per_s"]
        # the RESULT line says the answer first, then the level its figures are from, then those figures
        line = result_text("serve", m)
        answer, missed, *_ = line.removeprefix("RESULT: ").split("; ")
        assert answer.endswith("requests/s holds the SLO (the highest Poisson rate tried that did)")
        assert missed.endswith("requests/s does not (the lowest rate tried above it)")
        assert f"the result's level, its figures' (--find-max's answer, else the sweep's last) {held['level']}; " \
            in line and "output tokens/s at the result's level" in line
        assert line.index(held["level"]) < line.index("output tokens/s")
    heading = report_table(m)[0].en
    assert heading.startswith("--find-max: ") and "holds the SLO" in heading
    steps = [e for e in events if e["event"] == "step"]
    assert len(steps) == len(rows) and steps[0]["total_steps"] == 5
    # every request a row, with its times in order
    with open(tmp_path / REQUESTS_CSV, newline="") as f:
        written = list(csv.DictReader(f))
    assert tuple(written[0]) == COLUMNS and len(written) == m["requests"] == m["requests_csv_rows"]
    for row in written:
        assert float(row["scheduled_s"]) <= float(row["sent_s"]) <= float(row["first_token_s"]) <= float(row["end_s"])
        assert row["http_status"] == "200" and row["server_request_id"].startswith("cmpl-")
        assert row["output_tokens"] == "4" and row["input_tokens"] == "8"


def test_an_slo_no_level_meets_is_said_with_the_lowest_level_s_figures(serving):
    with serving(**CAPACITY) as server:
        code, m, _ = run(["--url", server.url, *SHORT, "--max-levels", "2", "--find-max", "--slo", "ttft_p99=0.001"])
    assert code == 0 and m["search_stop"] == NONE_MEETS and "max_rate" not in m
    heading = report_table(m)[0].en
    lowest = f"{m['missed_rate']:.3g} requests/s"
    assert f"no level met the SLO: the lowest tried, {lowest}, had 0.0% of its requests within it (TTFT p99 " in heading


def test_an_slo_every_level_meets_stops_at_the_ceiling(serving):
    with serving(**CAPACITY) as server:
        code, m, _ = run(["--url", server.url, *SHORT, "--find-max", "--slo", "ttft_p99=60000,e2e_p99=60000"])
    assert code == 0 and m["search_stop"] == CEILING and m["search_levels"] == 1
    assert "the search stopped at the ceiling" in report_table(m)[0].en


def test_a_closed_loop_search_is_in_whole_concurrencies(serving):
    with serving(**CAPACITY) as server:
        code, m, _ = run(["--url", server.url, *SHORT, "--find-max", "concurrency", "--slo", "ttft_p99=20"])
    assert code == 0 and m["find_max"] == "concurrency"
    assert all(float(r["concurrency"]).is_integer() for r in m["levels"])
    if m.get("max_concurrency_held") is not None and m.get("missed_concurrency") is not None:
        assert m["max_concurrency_held"] < m["missed_concurrency"] <= 8


def test_a_request_too_long_is_a_failure_with_the_server_s_words_in_the_rows(serving, tmp_path, monkeypatch):
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"prompt": "short one"}\n' + json.dumps({"prompt": "word " * 200}) + "\n")
    with serving(max_model_len=100) as server:
        code, m, events = run(["--url", server.url, "--prompts", str(prompts), "--concurrency", "1",
                               "--requests", "4", "--output-len", "4"])
    assert code == 0
    row = m["levels"][0]
    assert row["completed"] == 2 and row["errors_by_kind"] == {"HTTP 400": 2}
    warning = next(e for e in events if e["event"] == "warning")
    assert "This model's maximum context length is 100 tokens. However, you requested 204 tokens" in warning["message"]
    with open(tmp_path / REQUESTS_CSV, newline="") as f:
        failed = [r for r in csv.DictReader(f) if r["error"]]
    assert [(r["http_status"], r["error"]) for r in failed] == [("400", "HTTP 400")] * 2
    assert all("maximum context length is 100 tokens" in r["detail"] and r["first_token_s"] == "" for r in failed)


@pytest.mark.parametrize("argv, said", [
    (["--url", "http://h/v1", "--find-max"], "give --slo"),
    (["--url", "http://h/v1", "--find-max", "--slo", "ttft_p99=500", "--request-rate", "2"],
     "--request-rate does not go with it"),
    (["--url", "http://h/v1", "--find-max", "--slo", "ttft_p99=500", "--duration", "5"],
     "--duration does not go with it"),
    (["--url", "http://h/v1", "--find-max", "--slo", "ttft_p99=500", "--concurrency", "4,8"], "its one saturation level"),
    (["--url", "http://h/v1", "--budget", "30"], "--budget is the search's: give --find-max too"),
    (["--url", "http://h/v1", "--find-max", "--slo", "ttft_p99=500,attainment=1.5"],
     "attainment is a share above 0 and at most 1"),
    (["--url", "http://h/v1", "--find-max", "--slo", "ttft_p99=500", "--max-levels", "100"],
     "--max-levels 100: at most 64"),
    (["--test-server-set", "ttft=5"], "give --test-server too"),
    (["--test-server", "--test-server-set", "slots=1.5"], "slots and max_len whole"),
    (["--test-server", "--test-server-set", "speed=3"], "each part is ttft=MS"),
])
def test_bad_search_arguments_are_one_line_and_exit_2(capsys, argv, said):
    code, m, events = run(argv)
    assert code == 2 and m is None
    assert said in next(e["message"] for e in events if e["event"] == "error")
    assert "Traceback" not in capsys.readouterr().err


def test_bad_input_is_one_line_through_cardbench_run(tmp_path, capsys):
    from workloads import registry
    from workloads.serve.spec import SPEC

    with registry.registered(SPEC):
        code = cli.main(["run", "--runs-dir", str(tmp_path / "runs"), "serve", "--test-server", "--find-max"])
    captured = capsys.readouterr()
    assert code == 2 and "Traceback" not in captured.out + captured.err
    assert "give --slo" in [line for line in captured.err.splitlines() if line.strip()][-1]


def test_the_test_server_s_rate_holds_its_capacity_then_queues_in_arrival_order(serving):
    # 100 requests/s after a burst of 4: 20 sent at once begin 4 together, then one every 10 ms
    with serving(rate=100.0, burst=4) as server:
        code, m, _ = run(["--url", server.url, "--concurrency", "20", "--requests", "20", "--output-len", "2"])
    assert code == 0
    row = m["levels"][0]
    assert row["ttft_ms_p50"] < 200 and 0.15 * 1000 <= row["ttft_ms_p99"] < 150 + 400   # the 20th waits 16 x 10 ms


def test_a_level_near_the_client_s_own_ceiling_is_said_to_measure_the_client(serving, monkeypatch):
    from workloads.serve import sweep
    from workloads.serve.ceiling import Ceiling

    # a client said to read 50 tokens/s at most: any level here is past half of it
    monkeypatch.setattr(sweep, "measure", lambda: Ceiling(tokens_per_s=50.0, requests_per_s=1e6))
    with serving() as server:
        code, m, _ = run(["--url", server.url, "--concurrency", "1,2", "--requests", "4", "--output-len", "4"])
    assert code == 0 and m["client_ceiling_tokens_per_s"] == 50.0
    assert all(r["client_share"] == pytest.approx(r["chunks"] / r["duration_s"] / 50.0) for r in m["levels"])
    assert any(n.startswith("concurrency 1, concurrency 2: at half the client's own ceiling or more") for n in m["notes"])
    _, columns, rows = busy_table(m)   # what was busy: the client's load beside the card's
    at = [c.en for c in columns].index("client load %")
    assert float(rows[0][at].replace(",", "")) > 50    # the share, in % of the ceiling, is a column of the table


def test_the_ceiling_is_measured_against_a_no_delay_server_in_another_process():
    from workloads.serve.ceiling import measure

    found = measure()
    assert found is not None and found.tokens_per_s > 1000 and found.requests_per_s > 50
    assert found.share({"duration_s": 1.0, "chunks": found.tokens_per_s / 2, "requests": 1}) == pytest.approx(0.5)
