"""Traffic like a user's against the test server: a shared prefix (a prefix cache's effect as a group's first TTFT
against its later ones), multi-turn conversations whose history grows, a trace replayed at its times (Mooncake and
BurstGPT), gamma arrivals; each seeded and said in the result; a bad trace named by its row (exit 2), never read
whole."""

from __future__ import annotations

import io
import json

import pytest

from workloads.child.harness import Emitter, run_main
from workloads.serve.cli import main
from workloads.serve.schedule import arrival_offsets
from workloads.serve.traffic import BadTraffic, SharedPrefix, read_trace, trace_requests


def run(argv):
    out = io.StringIO()
    code = run_main(main, argv, emitter=Emitter(stream=out))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return code, next((e["metrics"] for e in events if e["event"] == "result"), None), events


def test_a_shared_prefix_is_paid_once_per_group_and_the_table_shows_first_against_later(serving):
    # 2 ms a token not in the server's prefix cache: a group's first request pays for its 256-token system prompt
    with serving(prefill_ms_per_token=0.2) as server:
        code, m, _ = run(["--url", server.url, "--shared-prefix", "3,4,256,16", "--concurrency", "1",
                          "--output-len", "2", "--seed", "7"])
    assert code == 0
    row = m["levels"][0]
    assert row["requests"] == 12 and row["errors"] == 0
    assert row["prefix_first_ttft_ms_p50"] >= 0.2 * 256 > 2 * row["prefix_later_ttft_ms_p50"]
    assert m["traffic"] == "shared prefix: 3 groups x 4 prompts, system prompt 256 tokens, question 16 tokens, seed 7"
    assert row["input_tokens"] == 12 * (256 + 16)    # the usage field's count: system prompt and question


def test_shared_prefix_prompts_are_seeded_and_each_group_shares_its_system_prompt():
    spec = SharedPrefix.parse("2,3,20,5")
    one, again, other = spec.requests(1, 4), spec.requests(1, 4), spec.requests(2, 4)
    assert one == again and one != other
    systems = {g: {r.prompt[0]["content"] for r in one if r.group == g} for g in (0, 1)}
    assert all(len(s) == 1 for s in systems.values()) and systems[0] != systems[1]
    assert len({r.prompt[1]["content"] for r in one}) == 6
    with pytest.raises(BadTraffic, match="G,P,S,Q"):
        SharedPrefix.parse("2,3,20")


def test_multi_turn_sends_the_growing_history_and_says_each_turn_s_ttft(serving):
    with serving(prefill_ms_per_token=0.05) as server:
        code, m, _ = run(["--url", server.url, "--endpoint", "chat", "--multi-turn", "3,0.01", "--concurrency", "2",
                          "--input-len", "20", "--output-len", "5"])
    assert code == 0
    row = m["levels"][0]
    assert row["requests"] == 4 * 3 and row["errors"] == 0          # two conversations a stream in flight
    turns = row["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    # each turn carries every earlier message and answer: 20 words, then + 5 answered + 20 asked, ...
    assert [t["input_tokens_mean"] for t in turns] == [20, 45, 70]
    assert m["turn_ttft"].startswith("1: ") and "(70 tokens)" in m["turn_ttft"]
    assert m["traffic"].startswith("multi-turn: 3-turn conversations, the whole history sent each turn, 0.01 s think")


def test_a_mooncake_trace_is_replayed_at_its_times_and_its_shared_blocks_share_text(serving, tmp_path):
    trace = tmp_path / "mooncake.jsonl"
    trace.write_text("\n".join(json.dumps(r) for r in (
        {"timestamp": 0, "input_length": 30, "output_length": 3, "hash_ids": [0]},
        {"timestamp": 200, "input_length": 40, "output_length": 2, "hash_ids": [0, 1]},
        {"timestamp": 400, "input_length": 10, "output_length": 4, "hash_ids": [2]})) + "\n")
    rows, cut = read_trace(trace, None)
    assert [r.at_s for r in rows] == [0, 0.2, 0.4] and not cut
    asked = trace_requests(rows, 0)
    assert asked[1].prompt.startswith(asked[0].prompt[:100]) and [r.max_tokens for r in asked] == [3, 2, 4]
    with serving() as server:
        code, m, _ = run(["--url", server.url, "--trace", str(trace), "--trace-speed", "2"])
    assert code == 0
    row = m["levels"][0]
    assert row["level"] == "trace at 2x" and row["requests"] == 3 and row["output_tokens"] == 9
    assert row["duration_s"] >= 0.2          # the last arrives 400 ms / 2 after the first
    assert m["traffic"] == "trace mooncake.jsonl, 3 requests at 2x, seed 0" and m.get("output_len") is None


def test_a_burstgpt_trace_is_read_with_its_header_and_only_the_rows_replayed_are_kept(tmp_path):
    trace = tmp_path / "burst.csv"
    lines = ["Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"]
    lines += [f"{5 + i * 0.5},ChatGPT,{100 + i},{20 + i},{120 + 2 * i},Conversation log" for i in range(1000)]
    trace.write_text("\n".join(lines) + "\n")
    rows, cut = read_trace(trace, 10)
    assert len(rows) == 10 and cut and rows[0].at_s == 0 and rows[9].at_s == 4.5
    assert (rows[3].input_tokens, rows[3].output_tokens) == (103, 23)


@pytest.mark.parametrize("text, said", [
    ('{"timestamp": 0, "input_length": 5, "output_length": 1}\n{"timestamp": -5, "input_length": 5, '
     '"output_length": 1}\n', "line 2: a negative time"),
    ('{"timestamp": 100, "input_length": 5, "output_length": 1}\n{"timestamp": 50, "input_length": 5, '
     '"output_length": 1}\n', "line 2: its time 0.05 s is before the row above (0.1 s)"),
    ("Timestamp,Request tokens,Response tokens\n1,5,5\nx,5,5\n", "line 3: not a BurstGPT row"),
    ("time,in,out\n1,2,3\n", "neither Mooncake's JSON lines nor BurstGPT's CSV"),
    ("", "neither Mooncake"),
])
def test_a_bad_trace_is_named_by_its_row_and_exits_2(tmp_path, text, said):
    trace = tmp_path / "t.jsonl"
    trace.write_text(text)
    code, m, events = run(["--url", "http://127.0.0.1:9/v1", "--trace", str(trace)])
    assert code == 2 and m is None
    assert said in next(e["message"] for e in events if e["event"] == "error")


def test_a_large_trace_is_not_read_whole(tmp_path, monkeypatch):
    """Only the rows replayed are read: a reader that fails past them is never reached."""
    trace = tmp_path / "big.jsonl"
    row = '{"timestamp": 0, "input_length": 5, "output_length": 1}\n'
    trace.write_text(row * 50 + "not json at all\n" * 1000)
    rows, cut = read_trace(trace, 50)
    assert len(rows) == 50 and cut


@pytest.mark.parametrize("argv, said", [
    (["--trace", "x.jsonl", "--concurrency", "4"], "--concurrency does not go with it"),
    (["--trace-speed", "2"], "give --trace FILE too"),
    (["--multi-turn", "3", "--request-rate", "2"], "--request-rate does not go with it"),
    (["--multi-turn", "1"], "2 to 1000 turns"),
    (["--shared-prefix", "1,2,3"], "give G,P,S,Q"),
])
def test_traffic_arguments_that_clash_are_one_line_exit_2(argv, said):
    code, m, events = run(["--url", "http://127.0.0.1:9/v1", *argv])
    assert code == 2 and said in next(e["message"] for e in events if e["event"] == "error")


def test_gamma_arrivals_keep_the_mean_rate_and_burst_as_the_shape_says():
    poisson = arrival_offsets(4000, 100.0, 3)
    bursty = arrival_offsets(4000, 100.0, 3, shape=0.25)
    even = arrival_offsets(4000, 100.0, 3, shape=8.0)
    for offsets in (poisson, bursty, even):
        assert offsets[-1] / len(offsets) == pytest.approx(0.01, rel=0.15)   # 100 requests/s, whatever the shape

    def spread(offsets):
        gaps = [b - a for a, b in zip(offsets, offsets[1:])]
        mean = sum(gaps) / len(gaps)
        return (sum((g - mean) ** 2 for g in gaps) / len(gaps)) ** 0.5 / mean   # 1 for Poisson, 1/sqrt(shape)

    assert spread(bursty) > 1.6 > spread(poisson) > 0.8 > 0.5 > spread(even)
    # seeded: the same gaps every run (these, from the seed's generator)
    assert arrival_offsets(3, 5.0, 1) == pytest.approx([0.0, 0.028858, 0.404889], abs=1e-6)


def test_gamma_arrivals_are_said_in_the_result(serving):
    with serving() as server:
        code, m, _ = run(["--url", server.url, "--request-rate", "200", "--burstiness", "0.5", "--requests", "8",
                          "--output-len", "2", "--seed", "3"])
    assert code == 0 and m["burstiness"] == 0.5
    assert m["traffic"] == "gamma arrivals of shape 0.5 (burstiness), seed 3"
