"""The figures of a level as vLLM's serving benchmark defines them, from outcomes built by hand, and the
stream's framing cut at every byte."""

from __future__ import annotations

import pytest

from workloads.serve.client import BROKEN, Dechunker, Outcome
from workloads.serve.figures import level_figures, tpot
from workloads.serve.slo import Slo
from workloads.serve.table import lines, report_table, result_of


def done(ttft, gaps, usage=None, prompt=None):
    return Outcome(ok=True, ttft=ttft, itl=list(gaps), latency=ttft + sum(gaps), chunks=len(gaps) + 1,
                   output_tokens=usage, prompt_tokens=prompt)


def test_tpot_is_the_time_after_the_first_token_over_the_tokens_after_it():
    # 5 chunks, but the usage field says 9 tokens (chunks may bundle tokens): (latency - ttft) / (9 - 1)
    o = done(0.1, [0.02, 0.02, 0.02, 0.02], usage=9)
    assert tpot(o) == pytest.approx(0.08 / 8)
    assert tpot(done(0.1, [])) is None   # one token: no TPOT (vLLM leaves it out of the TPOT figures)


def test_a_level_s_figures_rates_percentiles_errors_and_goodput():
    outcomes = [done(0.1, [0.01] * 3, usage=4, prompt=10), done(0.3, [0.05] * 3, usage=4, prompt=10),
                Outcome(error="HTTP 500"), Outcome(error=BROKEN), Outcome(error=BROKEN)]
    f = level_figures(outcomes, 2.0, [12] * 5, {"ttft": 200, "tpot": 20})
    assert (f["requests"], f["completed"], f["errors"]) == (5, 2, 3)
    assert f["errors_by_kind"] == {"HTTP 500": 1, BROKEN: 2}    # every failure counted by kind, none dropped
    assert f["output_tokens"] == 8 and f["input_tokens"] == 20 and f["tokens_from"] == "usage"
    assert f["request_throughput"] == 1.0 and f["output_tokens_per_s"] == 4.0 and f["total_tokens_per_s"] == 14.0
    assert f["ttft_ms_mean"] == pytest.approx(200) and f["ttft_ms_p50"] == pytest.approx(200)
    assert f["ttft_ms_p99"] == pytest.approx(100 + 200 * 0.99)   # linear, as numpy's (and vLLM's)
    assert f["tpot_ms_p50"] == pytest.approx(30) and f["itl_ms_p50"] == pytest.approx(30)
    assert f["e2el_ms_mean"] == pytest.approx((130 + 450) / 2)
    assert f["good_requests"] == 1 and f["goodput"] == 0.5       # the second misses both SLOs


def test_output_tokens_are_the_chunks_where_no_usage_field_came_and_it_says_so():
    f = level_figures([done(0.1, [0.01] * 4)], 1.0, [3])
    assert f["output_tokens"] == 5 and f["tokens_from"] == "chunks" and f["input_tokens"] == 3
    assert "goodput" not in f
    empty = level_figures([Outcome(error=BROKEN)], 1.0, [3])
    assert empty["completed"] == 0 and empty["ttft_ms_p50"] is None and empty["output_tokens_per_s"] == 0


@pytest.mark.parametrize("text, said", [("ttft=0", "positive"), ("ttft", "ttft=MS"), ("speed=3", "ttft=MS"),
                                        ("", "give ttft"), ("tpot=inf", "positive"), ("ttft_p100=5", "under 100"),
                                        ("ttft_p99=5,attainment=2", "at most 1"), ("attainment=0.9", "give ttft")])
def test_a_bad_slo_is_named(text, said):
    with pytest.raises(ValueError, match=said):
        Slo.parse(text)
    assert Slo.parse("ttft=500, tpot=50").limits == {"ttft": 500.0, "tpot": 50.0}


def test_chunked_framing_decodes_whatever_the_reads_cut():
    body = b"data: one\n\n" * 3 + b"x" * 300
    framed = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(part), part) for part in (body[:7], body[7:200], body[200:]))
    framed += b"0\r\nTrailer: 1\r\n\r\n"
    for cut in range(1, 40):
        d = Dechunker()
        out = b"".join(d.feed(framed[i:i + cut]) for i in range(0, len(framed), cut))
        assert out == body and d.done, cut


def test_the_report_table_has_a_row_per_level_and_the_result_the_last_level_s_figures():
    rows = [dict(level_figures([done(0.1, [0.01])], 1.0, [2]), level=f"concurrency {c}") for c in (1, 4)]
    result = result_of(rows, {"model": "m", "concurrency": "1,4"}, ["a note"])
    assert result["at_level"] == "concurrency 4" and result["output_tokens_per_s"] == 2.0
    assert result["model"] == "m" and result["levels_measured"] == 2 and result["notes"] == ["a note"]
    heading, columns, cells = report_table(result)
    assert [c[0] for c in cells] == ["concurrency 1", "concurrency 4"]
    assert columns[3].en == "TTFT p50 ms" and cells[0][3] == "100"     # the one figure rule: table.figure
    assert "vLLM" in heading.en and heading("zh")


def test_a_long_run_s_table_in_the_log_is_its_first_rows_and_where_the_rest_is():
    rows = [dict(level_figures([done(0.1, [0.01])], 1.0, [2]), level=f"window {w}") for w in range(1, 31)]
    said = lines(result_of(rows, {}, []))
    cells = report_table(result_of(rows, {}, []))[2]
    assert said[0].startswith("Serving sweep") and said[1].split()[:3] == ["level", "req/s", "output"]
    first = said[:said.index("  ... and 6 more row(s): every one is in the report's table and in events.jsonl") + 1]
    assert [line.split("  ")[1].strip() for line in first[2:-1]] == [f"window {w}" for w in range(1, 25)]
    assert said[2].split() == " ".join(cells[0]).split()   # the report's cells, none other
    # every table after it is cut the same way, saying where the rest is
    assert said.count("  ... and 6 more row(s): every one is in the report's table and in events.jsonl") == 3


def test_each_level_carries_what_the_card_did_while_it_ran(tmp_path):
    import json

    from workloads.serve.card import CardDuringLevels

    def sample(t, util, mem, power):
        return {"t": t, "devices": [{"index": 0, "util_gpu_pct": util, "mem_used_bytes": mem, "power_w": power},
                                    {"index": 1, "util_gpu_pct": None, "mem_used_bytes": mem, "power_w": power}]}

    lines = [sample(1.0, 10, 2**30, 100), sample(2.0, 90, 3 * 2**30, 300), sample(3.0, 50, 2**30, 200), {"t": 2.5}]
    (tmp_path / "telemetry.jsonl").write_text("".join(json.dumps(s) + "\n" for s in lines) + '{"t": 9, "dev')
    card = CardDuringLevels(str(tmp_path))
    found = card.during(1.5, 3.0)
    # util: GPU0's (the other reads none) mean of 90 and 50; memory summed over the GPUs, its peak; power summed
    assert found == {"card_samples": 2, "card_util_pct": 70.0, "card_mem_peak_bytes": 6 * 2**30,
                     "card_power_w": 500.0}
    assert card.during(5.0, 6.0)["card_util_pct"] is None       # nothing new, nothing in the window
    assert CardDuringLevels(None).during(0, 9)["card_samples"] == 0
    card.close()


@pytest.mark.parametrize("line, kind", [(b'data: [1, 2]\n\n', "not an HTTP/SSE answer"),
                                        (b'data: {"error": {"message": "overloaded"}}\n\n', "error in the stream"),
                                        (b'data: {"choices": [{"text": ""}]}\n\ndata: [DONE]\n\n',
                                         "no token in the stream")])
def test_a_stream_that_is_not_tokens_is_an_error_of_its_kind(line, kind):
    import asyncio

    from workloads.serve.client import Connection, Endpoint, stream

    async def go():
        async def answer(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(line), line))
            await writer.drain()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        conn = Connection(Endpoint.parse(f"http://127.0.0.1:{port}/v1"))
        try:
            return await stream(conn, "/v1/completions", {"prompt": "x"}, chat=False)
        finally:
            conn.close()
            server.close()

    outcome = asyncio.run(go())
    assert not outcome.ok and outcome.error == kind


def test_a_data_line_that_never_ends_is_an_error_at_its_cap_not_at_the_timeout():
    # item 15 of issue 37: the line grew (quadratically, bytes += bytes) until --timeout; now one error at 1 MiB
    import asyncio
    import time

    from workloads.serve.client import BAD_RESPONSE, MAX_EVENT_LINE, Connection, Endpoint, stream

    async def go():
        async def answer(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            block = b"x" * 65536
            try:
                for _ in range(4 * MAX_EVENT_LINE // len(block)):
                    writer.write(b"%x\r\n%s\r\n" % (len(block), block))
                    await writer.drain()
                await asyncio.sleep(30)
            except (ConnectionError, asyncio.CancelledError):
                pass

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        conn = Connection(Endpoint.parse(f"http://127.0.0.1:{port}/v1"))
        try:
            return await stream(conn, "/v1/completions", {"prompt": "x"}, chat=False)
        finally:
            conn.close()
            server.close()

    t0 = time.monotonic()
    outcome = asyncio.run(go())
    assert time.monotonic() - t0 < 10
    assert not outcome.ok and outcome.error == BAD_RESPONSE and "without its end" in outcome.detail
