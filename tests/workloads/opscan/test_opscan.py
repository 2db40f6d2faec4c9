"""The operator-coverage scan end to end on the CPU, with every failure kind injected, and its bad inputs.

The scan runs `python -m workloads.opscan` on a tiny model (tinynet.py) so the whole file takes seconds,
not the built-ins' minutes (bench/opscan_scan.py times those).
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from workloads import protocol
from workloads.opscan.inject import ENV as INJECT_ENV
from workloads.opscan import notes
from workloads.opscan.result_record import OpscanResult
from workloads.opscan.state import STATE_ENV

HERE = Path(__file__).resolve().parent
INJECTED = {("aten.convolution", "bf16"): "notimpl", ("aten.addmm", "fp16"): "wrong",
            ("aten.native_layer_norm", "bf16"): "crash", ("aten.gelu", "fp16"): "hang"}


def scan(tmp_path: Path, *args: str, inject: str = "", timeout: float = 120) -> tuple[int, list[protocol.Event], str]:
    env = dict(os.environ, PYTHONPATH=f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               **{STATE_ENV: str(tmp_path / "state"), INJECT_ENV: inject})
    proc = subprocess.run([sys.executable, "-m", "workloads.opscan", "--device", "cpu", "--repeats", "1", *args],
                          capture_output=True, text=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    events = [protocol.parse_line(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, events, proc.stderr


def rows(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with open(path, newline="") as f:
        return {(r["op"], r["dtype"]): r for r in csv.DictReader(f)}


def test_every_injected_failure_shows_as_its_status_and_the_scan_covers_the_rest(tmp_path):
    inject = ",".join(f"{op}:{dtype}={kind}" for (op, dtype), kind in INJECTED.items())
    inject = inject.replace("aten.convolution:bf16", "aten.mm:bf16")  # tinynet has no convolution: its mm instead
    code, events, stderr = scan(tmp_path, "--model", "tinynet:build", "--op-timeout", "3", "--out", str(tmp_path),
                                inject=inject)
    assert code == 0, stderr
    result = next(e for e in events if isinstance(e, protocol.Result)).metrics
    matrix = rows(tmp_path / "ops.csv")
    failing = {key: r["status"] for key, r in matrix.items() if r["status"] != "ok"}
    assert failing == {("aten.mm.default", "bf16"): "not_implemented", ("aten.addmm.default", "fp16"): "mismatch",
                       ("aten.native_layer_norm.default", "bf16"): "crash", ("aten.gelu.default", "fp16"): "hang"}
    # the scan went on past the crash and the hang: every op has its row in every dtype it runs in
    ops = {op for op, _ in matrix}
    optimizer_only = {op for (op, _), r in matrix.items() if r["phases"] == "optimizer"}
    for op in ops:
        for dtype in ("fp32",) if op in optimizer_only else ("fp32", "fp16", "bf16"):
            assert (op, dtype) in matrix, (op, dtype)
    assert all(r["status"] == "ok" for (op, dtype), r in matrix.items() if dtype == "fp32")
    assert result["crashes"] == 1 and result["hangs"] == 1 and len(result["restart_s"]) == 2
    assert result["by_dtype"]["bf16"]["crash"] == 1 and result["by_dtype"]["fp16"]["hang"] == 1
    # every figure of a scan with failures, crashes and hangs is one its record declares, with its unit
    assert OpscanResult.of(result).undeclared() == []
    # the modules that call each failing op, which is what a user keeps in fp32
    assert matrix[("aten.native_layer_norm.default", "bf16")]["modules"] == "build:1 (LayerNorm)"
    assert matrix[("aten.gelu.default", "fp16")]["modules"] == "build:2 (GELU)"
    wrong = matrix[("aten.addmm.default", "fp16")]
    assert float(wrong["nmse"]) > float(wrong["threshold"])
    assert "not implemented for 'BFloat16'" in matrix[("aten.mm.default", "bf16")]["message"]
    # each failure's note: ops.csv's English, and the report's in Chinese said from the same figures (the worker's
    # own last line and torch's error stay as they were written)
    said = {(f["op"], f["dtype"]): notes.note(f) for f in result["failures"]}
    crash, hang = ("aten.native_layer_norm.default", "bf16"), ("aten.gelu.default", "fp16")
    assert matrix[crash]["message"].startswith("the worker died (SIGABRT)") and str(said[crash]) == matrix[crash]["message"]
    assert "工作进程退出（SIGABRT）" in said[crash]("zh") and "the worker" not in said[crash]("zh")
    assert "工作进程挂起（3 秒内无响应）" in said[hang]("zh") and "hung" in matrix[hang]["message"]
    assert "超过阈值" in said[("aten.addmm.default", "fp16")]("zh")
    # run.log has the table the scan made, in words: its failures by name, the ok ops per dtype
    logged = stderr[stderr.index("opscan: Operator coverage (failures first)"):]
    gelu = next(line.split() for line in logged.splitlines() if "aten.gelu.default" in line)
    assert gelu[1:3] == ["fp16", "hang"] and re.search(r"\d+ ops +fp32 +ok", logged)
    # progress: one step per case, op k of N with the counts so far
    steps = [e for e in events if isinstance(e, protocol.Step)]
    start = next(e for e in events if isinstance(e, protocol.Start))
    assert len(steps) == start.config["total_steps"] and steps[-1].step == start.config["total_steps"]
    assert steps[-1].extra["by_status"]["crash"] == 1 and steps[-1].extra["by_status"]["hang"] == 1
    assert "crash 1" in steps[-1].describe() and "hang 1" in steps[-1].describe()  # run.log says the counts so far
    assert events[-1].status == "ok"


def test_a_resumed_scan_runs_only_the_cases_left(tmp_path):
    args = ("--model", "tinynet:build", "--dtypes", "fp32", "--out", str(tmp_path))
    code, events, stderr = scan(tmp_path, *args)
    assert code == 0, stderr
    total = next(e for e in events if isinstance(e, protocol.Start)).config["total_steps"]
    journal = next((tmp_path / "state").glob("*/journal.jsonl"))
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:5]) + "\n")  # as if stopped after five cases
    code, events, stderr = scan(tmp_path, *args, "--resume")
    assert code == 0, stderr
    assert next(e for e in events if isinstance(e, protocol.Start)).config["resumed_at_case"] == 5
    assert [e.step for e in events if isinstance(e, protocol.Step)] == list(range(6, total + 1))
    assert len(rows(tmp_path / "ops.csv")) == len({json.loads(line)["op"] for line in lines})
    # without --resume the same options start over
    code, events, _ = scan(tmp_path, *args)
    assert len([e for e in events if isinstance(e, protocol.Step)]) == total


@pytest.mark.parametrize("args, said", [
    (("--model", "tinynet:not_a_model"),
     "--model tinynet:not_a_model: not_a_model() returned 3 (int), not (model, example_inputs)"),
    (("--model", "tinynet:broken"), "--model tinynet:broken: broken() raised KeyError: 'weights.bin'"),
    (("--model", "tinynet:missing"), "--model tinynet:missing: tinynet has no function missing"),
    (("--model", "no_such_module:build"), "--model no_such_module:build: no module named no_such_module"),
    (("--dtypes", "fp32,fp8"), "--dtypes: unknown dtype fp8"),
    (("--sources", "vgg"), "--sources: unknown model vgg"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, said):
    code, events, stderr = scan(tmp_path, *args)
    errors = [e for e in events if isinstance(e, protocol.Error)]
    assert code == 2 and len(errors) == 1 and errors[0].message == said
    assert "Traceback" not in stderr


def test_a_bad_injection_is_refused(tmp_path):
    code, events, _ = scan(tmp_path, "--model", "tinynet:build", inject="aten.gelu:fp8=crash")
    assert code == 2 and "OP:DTYPE=KIND" in next(e for e in events if isinstance(e, protocol.Error)).message


def test_cardbench_run_records_a_scan_like_any_workload(tmp_path, monkeypatch, capsys):
    """Registered as the registry line will register it: `cardbench run opscan` runs it through the run store."""
    import asyncio

    from tui.cli.run import run_workload
    from tui.store import load_run
    from workloads import registry
    from workloads.opscan.spec import SPEC

    monkeypatch.setenv("PYTHONPATH", f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "state"))
    monkeypatch.setenv(INJECT_ENV, "aten.native_layer_norm:bf16=crash")
    with registry.registered(SPEC):
        code = asyncio.run(run_workload("opscan", ["--model", "tinynet:build", "--device", "cpu", "--repeats", "1"],
                                        runs_dir=str(tmp_path / "runs"), as_json=False))
    assert code == 0
    record = load_run(next((tmp_path / "runs").iterdir()))
    assert record.status == "ok" and record.result.metrics["crashes"] == 1
    assert len(record.steps) == record.start.config["total_steps"]
    said = capsys.readouterr().out
    assert "WARNING: aten.native_layer_norm.default in bf16: crash: the worker died (SIGABRT)" in said
