"""`cardbench run serve` as a user runs it: bad input is one line and no traceback; the key is nowhere in the
run; --launch starts the server, keeps its log and stops it."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from tui import cli
from tui.store import load_run

KEY = "sk-test-7f3a9c1e5b2d4680"


def cardbench(runs, *argv):
    return cli.main(["run", "--runs-dir", str(runs), "serve", *argv])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    lines = [line for line in captured.err.splitlines() if line.strip()]
    return lines[-1] if lines else captured.out.strip().splitlines()[-1]


def test_the_key_is_used_and_written_nowhere_in_the_run(serve_workload, serving, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SERVE_TEST_KEY", KEY)
    runs = tmp_path / "runs"
    with serving(api_key=KEY, itl_s=0.001) as server:
        code = cardbench(runs, "--url", server.url, "--api-key-env", "SERVE_TEST_KEY", "--concurrency", "2",
                         "--requests", "4", "--output-len", "4")
    out = capsys.readouterr().out
    assert code == 0, out
    run = next(runs.iterdir())
    record = load_run(run)
    assert record.status == "ok" and record.result.metrics["levels"][0]["completed"] == 4
    assert record.config.get("api_key_env") == "SERVE_TEST_KEY" or "SERVE_TEST_KEY" in (run / "events.jsonl").read_text()
    for path in run.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert "concurrency 2" in out


@pytest.mark.parametrize("case, behaviour, said", [
    ("unreachable", None, "cannot reach http://127.0.0.1:"),
    ("not openai", {"not_openai": True}, "no model list: not an OpenAI-compatible API"),
    ("unknown model", {}, "does not serve model 'nope'; it serves: test-model"),
    ("401", {"api_key": KEY}, "refused GET http://127.0.0.1:"),
])
def test_a_server_that_cannot_be_benchmarked_is_one_line(serve_workload, serving, tmp_path, capsys, case,
                                                         behaviour, said):
    runs = tmp_path / "runs"
    extra = ["--model", "nope"] if case == "unknown model" else []
    if behaviour is None:
        code = cardbench(runs, "--url", f"http://127.0.0.1:{free_port()}/v1", *extra)
    else:
        with serving(**behaviour) as server:
            code = cardbench(runs, "--url", server.url, "--requests", "2", *extra)
    assert code == 1
    line = one_error_line(capsys)
    assert said in line, line


@pytest.mark.parametrize("argv, said", [
    (["--url", "ftp://x/v1"], "is not http://HOST:PORT/v1"),
    (["--url", "http://h/v1", "--concurrency", "1,x"], "'x' is not a positive whole number"),
    (["--url", "http://h/v1", "--concurrency", "2", "--request-rate", "1"], "not both"),
    (["--url", "http://h/v1", "--slo", "ttft=-1"], "positive number of milliseconds"),
    (["--url", "http://h/v1", "--api-key-env", "UNSET_SERVE_VAR_X"], "not set or empty"),
    (["--url", "http://h/v1", "--api-key-env", "sk-abc.def"], "takes a variable's name"),
    (["--url", "http://h/v1", "--api-key", "abc123secretXYZ"], "not set or empty"),   # argparse's abbreviation
    (["--concurrency", "4"], "give --url"),
    (["--url", "http://h/v1", "--device", "cuda:1"], "sets the cards of the server --launch starts"),
    (["--url", "http://h/v1", "--launch", "true", "--device", "gpu0"], "is not auto, cpu or cuda:N"),
    (["--launch", "no-such-server-binary --port 1"], "command not found: no-such-server-binary"),
])
def test_bad_input_is_refused_before_anything_runs(serve_workload, tmp_path, capsys, argv, said):
    runs = tmp_path / "runs"
    assert cardbench(runs, *argv) == 2
    line = one_error_line(capsys)
    assert said in line and "sk-abc" not in line and "secret" not in line, line
    assert not runs.exists() or not any(runs.iterdir())


def test_your_prompts_file_is_read_and_a_bad_line_named(serve_workload, serving, tmp_path, capsys):
    good = tmp_path / "prompts.jsonl"
    good.write_text('{"prompt": "one two three"}\n\n{"prompt": "four five", "max_tokens": 3}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "fine"}\n{"text": "no prompt"}\n')
    runs = tmp_path / "runs"
    assert cardbench(runs, "--url", "http://h/v1", "--prompts", str(bad)) == 2
    assert "line 2 has no \"prompt\"" in one_error_line(capsys)
    with serving() as server:
        assert cardbench(runs, "--url", server.url, "--prompts", str(good), "--concurrency", "2", "--requests", "4",
                         "--output-len", "5") == 0
    m = load_run(next(runs.iterdir())).result.metrics
    assert m["prompts"] == "your file" and m["input_len"] is None
    assert m["levels"][0]["output_tokens"] == 5 + 3 + 5 + 3 and m["levels"][0]["input_tokens"] == 3 + 2 + 3 + 2


def test_launch_starts_the_server_keeps_its_log_and_stops_it(serve_workload, tmp_path, capsys):
    runs = tmp_path / "runs"
    port = free_port()
    launch = f"sh -c 'echo cards=$CUDA_VISIBLE_DEVICES; exec {sys.executable} -m workloads.serve.testserver --port {port}'"
    code = cardbench(runs, "--launch", launch, "--url", f"http://127.0.0.1:{port}/v1", "--concurrency", "2",
                     "--requests", "4", "--output-len", "3", "--grace", "2", "--device", "cuda:1")
    out = capsys.readouterr().out
    assert code == 0, out
    log = (next(runs.iterdir()) / "run.log").read_text()
    assert f"[server] listening on 127.0.0.1:{port}" in log and "the launched server stopped" in log
    assert "[server] cards=1" in log     # --device: the card the launched server sees
    with socket.socket() as s:   # it is gone: nothing answers on its port
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_a_launched_server_that_exits_is_named_with_its_last_lines(serve_workload, tmp_path, capsys):
    runs = tmp_path / "runs"
    script = "import sys; print('CUDA out of memory while loading'); sys.exit(3)"
    code = cardbench(runs, "--launch", f"{sys.executable} -c \"{script}\"", "--launch-timeout", "30")
    assert code == 1
    line = one_error_line(capsys)
    assert "exited with code 3 before it answered" in line and "CUDA out of memory while loading" in line
    assert os.path.exists(next(runs.iterdir()) / "run.log")
