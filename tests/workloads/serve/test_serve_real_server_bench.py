"""bench/serve_real_server.py (issue 36 item 13): it names everything `transformers serve` needs, and when the server
does not come up it shows the server's last lines, not cardbench's last line ("end: failed (exit code 1)").

The server here is a fake command that prints a traceback's end and exits, as `transformers serve` does without
accelerate; the sweep is the bench's own, through `cardbench run serve --launch` (a few seconds)."""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys

import pytest

from paths import REPO

# more lines than the workload's own error quotes (3), so the bench's tail is what shows the first of them
FAKE_SERVER = ("import sys\n"
               "print('INFO: loading /tmp/tiny-qwen2', file=sys.stderr)\n"
               "for i in range(6): print(f'  File \"loader.py\", line {i}', file=sys.stderr)\n"
               "print('ImportError: Using a `device_map` requires `accelerate`: pip install accelerate', "
               "file=sys.stderr)\n"
               "sys.exit(1)\n")


def _bench():
    spec = importlib.util.spec_from_file_location("serve_real_server", REPO / "bench" / "serve_real_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_server_that_exits_is_shown_by_its_last_lines(tmp_path):
    bench = _bench()
    port = bench.free_port()
    launch = f"{shlex.quote(sys.executable)} -c {shlex.quote(FAKE_SERVER)}"
    args = argparse.Namespace(concurrency="1", requests=2, input_len=8, output_len=4, launch_timeout=60)
    with pytest.raises(SystemExit) as exited:
        bench.sweep(launch, port, tmp_path / "runs", "completions", args)
    said = str(exited.value.code)
    first, *rest = said.splitlines()
    assert first.startswith("serve_real_server: cardbench run serve --endpoint completions exited 1: "
                            "cardbench: error: the server command exited with code 1 before it answered")
    assert "end: failed" not in first                     # what it said before: the reason hidden
    assert rest[0] == "the server's last 8 lines (run.log):"
    assert rest[1] == "  INFO: loading /tmp/tiny-qwen2"     # past the 3 lines the workload's error quotes
    assert rest[-1].endswith("ImportError: Using a `device_map` requires `accelerate`: pip install accelerate")


def test_it_names_all_that_transformers_serve_needs_and_the_serve_extra_holds_them_but_not_torch():
    bench = _bench()
    assert set(bench.SERVER_MODULES) == {"fastapi", "uvicorn", "openai", "transformers", "accelerate"}
    doc = bench.__doc__.split("\n\n")[1]
    assert "Requires: fastapi uvicorn openai transformers accelerate" in doc and "torch" in doc
    tomllib = pytest.importorskip("tomllib")   # Python 3.11's
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {req.split(">")[0].split("=")[0].split("[")[0] for req in extras["serve"]}
    assert names == set(bench.SERVER_MODULES)
    assert not any(req.startswith("torch") for name, reqs in extras.items() if name != "torch" for req in reqs)


def test_a_missing_module_is_named_in_one_line(monkeypatch, capsys):
    bench = _bench()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "accelerate" else real(name, *a))
    monkeypatch.setattr(sys, "argv", ["serve_real_server.py"])
    with pytest.raises(SystemExit) as exited:
        bench.main()
    said = str(exited.value.code)
    missing = said.split(": transformers serve needs ")[0]
    assert "\n" not in said and missing.startswith("serve_real_server: missing ") and "accelerate" in missing
    assert "fastapi, uvicorn, openai, transformers, accelerate" in said and ".[serve]" in said
