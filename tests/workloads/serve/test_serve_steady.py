"""`cardbench run serve --duration S`: one level kept busy for S seconds, a row and a step of figures every --window
(the soak's steady load: issue 27, item 4); its refusals; what a soak adds to serve's arguments."""

from __future__ import annotations

import io
import json

import pytest

from workloads.child.harness import Emitter, run_main
from workloads.serve.bounds import read_against
from workloads.serve.cli import main
from workloads.serve.spec import SPEC, planned_steps, steady


def run(argv):
    out = io.StringIO()
    code = run_main(main, argv, emitter=Emitter(stream=out))
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_duration_run_keeps_its_level_busy_and_books_a_row_per_window(serving):
    # 2 ms a token, 4 tokens: a request takes ~10 ms, so each 0.4 s window holds dozens at 2 in flight
    with serving(ttft_s=0.002, itl_s=0.002) as server:
        code, events = run(["--url", server.url, "--duration", "1.2", "--window", "0.4", "--concurrency", "2",
                            "--input-len", "8", "--output-len", "4"])
        received = len(server.timestamps)
    assert code == 0, events
    steps = [e for e in events if e["event"] == "step"]
    m = next(e["metrics"] for e in events if e["event"] == "result")
    rows = m["levels"]
    assert [s["step"] for s in steps] == [1, 2, 3] and {s["total_steps"] for s in steps} == {3}
    # every step names the one level, so a soak files each window's latency under it
    assert {s["level"] for s in steps} == {"concurrency 2"} and m["duration_s"] == 1.2 and m["window_s"] == 0.4
    assert [r["window"] for r in rows] == [1, 2, 3] and rows[0]["level"].startswith("concurrency 2, 0.0-0.4 s")
    for before, after in zip(rows, rows[1:]):
        assert after["t_start"] == before["t_end"]     # no gap between windows: each request is in exactly one
    assert all(r["completed"] >= 2 and r["errors"] == 0 and r["tpot_ms_p50"] >= 1.0 for r in rows)
    assert sum(r["requests"] for r in rows) == received - 1    # every request the server read, but the probe
    assert [s["ttft_ms_p50"] for s in steps] == [r["ttft_ms_p50"] for r in rows]
    said = read_against(m)
    assert said is not None and "the output tokens/s in the first window" in said.en and "bound" not in said.en


def test_a_duration_run_at_a_poisson_rate(serving):
    with serving() as server:
        code, events = run(["--url", server.url, "--duration", "0.6", "--request-rate", "40", "--input-len", "4",
                            "--output-len", "2", "--seed", "3"])
    assert code == 0, events
    rows = next(e["metrics"] for e in events if e["event"] == "result")["levels"]
    assert len(rows) == 5 and all(r["rate"] == 40 for r in rows)      # windows of a fifth of the duration
    assert sum(r["completed"] for r in rows) >= 5     # ~24 arrivals (seeded); far fewer only on a stalled machine


@pytest.mark.parametrize("argv, said", [
    (["--duration", "60", "--concurrency", "1,4"], "--duration keeps one level busy: --concurrency '1,4' has 2"),
    (["--duration", "60", "--requests", "9"], "--requests does not go with it"),
    (["--window", "5"], "--window is the rows of a --duration run"),
])
def test_what_a_duration_run_refuses(argv, said, capsys):
    code, events = run(["--url", "http://127.0.0.1:9/v1", *argv])
    errors = [e["message"] for e in events if e["event"] == "error"]
    assert code == 2 and len(errors) == 1 and said in errors[0] and "Traceback" not in capsys.readouterr().err
    assert not any(e["event"] == "start" for e in events)     # refused before anything ran


def test_a_soak_asks_serve_for_its_steady_form():
    assert SPEC.steady is steady
    # the rest of the soak, and windows of a fifth of its interval, at most a minute
    assert steady(["--url", "U", "--concurrency", "8"], 3600.5, 600) == \
        ["--url", "U", "--concurrency", "8", "--duration", "3600.500", "--window", "60"]
    assert steady(["--url", "U"], 9.0, 3) == ["--url", "U", "--duration", "9.000", "--window", "0.6"]
    assert steady(["--duration", "30"], 9.0, 3) == ["--duration", "30"]     # the user's own is kept
    assert planned_steps(["--duration", "3600"], {}) == 60 and planned_steps(["--duration", "1.2", "--window", "0.4"], {}) == 3
    assert planned_steps(["--concurrency", "1,4"], {}) == 2
