"""Real cold starts of the tiny preset on the CPU, as a user runs them (`cardbench run llm|finetune --cold-start`): the
phases from a fresh process add up to the total, the weights were written and read cold, the table is under the
RESULT line and in the report in both languages; finetune's first step gives its loss. Refusals are one line."""

import json
import os
import subprocess
import sys
import zipfile

import pytest
from llama_checkpoints import write_config
from paths import REPO
from safetensors_files import write_safetensors

from tui.report import png
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads.cold_start.split import PHASES
from workloads.protocol import CHECK_ARGS_ENV
from workloads.models.llama.presets import PRESETS

CARDBENCH = "import sys; from tui.cli import console_main; sys.exit(console_main())"


def _cardbench(runs, *argv, timeout=240):
    return subprocess.run([sys.executable, "-c", CARDBENCH, "run", *argv, "--runs-dir", str(runs)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout, cwd=REPO)


def _result(run_dir):
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    return next(e for e in events if e["event"] == "result")["metrics"]


def _phases_add_up(m):
    timed = [m[key] for key, _ in PHASES if m[key] is not None]
    assert all(t >= 0 for t in timed) and m["cold_start_import_s"] > 0.05   # torch's import is no instant
    assert sum(timed) == pytest.approx(m["cold_start_s"], rel=1e-6)


@pytest.fixture(scope="module")
def llm_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cold_llm")
    out = _cardbench(tmp / "runs", "llm", "--model", "tiny", "--cold-start", "--input-len", "16", "--device", "cpu")
    assert out.returncode == 0, out.stderr[-2000:]
    [run_dir] = RunStore(tmp / "runs").list()
    return out.stdout, run_dir, tmp


def test_llm_cold_start_splits_a_fresh_process_into_its_phases(llm_run):
    stdout, run_dir, _ = llm_run
    m = _result(run_dir)
    _phases_add_up(m)
    assert m["cold_start_compile_s"] is None and m["cold_start_compile_how"] == "off"
    # the preset's fp32 weights, written to a scratch file and read back: its bytes, and a state measured
    assert m["cold_start_read_bytes"] >= PRESETS["tiny"].parameter_count() * 4
    # its pages dropped before the fresh process read them: cold, unless the scratch file is on a filesystem in memory
    in_memory = any(fs in m["cold_start_read_reason"] for fs in ("tmpfs", "ramfs", "hugetlbfs"))
    assert m["cold_start_read_state"] == ("warm" if in_memory else "cold"), m["cold_start_read_reason"]
    assert "mincore" in m["cold_start_read_reason"]
    assert (m["model_size"], m["input_len"], m["batch_size"], m["dtype"]) == ("tiny", 16, 1, "fp32")
    log = (run_dir / "run.log").read_text()
    assert "the preset's random weights written to" in log and "removed at the end" in log
    table = stdout[stdout.index("Cold start: from a fresh process to the first token"):]
    assert "  weights read " in table and "  total " in table and "100.0 %" in table


def test_the_report_has_the_phases_under_the_runs_figures(llm_run):
    """(The table's Chinese words: test_cold_start_table.py; one export is seconds of this file's time.)"""
    _, run_dir, tmp = llm_run
    bundle = export_bundle(ExportInputs([run_dir], tmp / "out", screenshot_svg=png.terminal_svg("cb", "cb"),
                                        doctor_checks=[]))
    with zipfile.ZipFile(bundle) as zf:
        report = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("report.md"))
    figures = report[report.index("Cold start: from a fresh process to the first token"):]
    assert "| process start and torch import |" in figures and "| first compile or graph capture | N/A | N/A |" in figures
    assert "| total |" in figures and "100.0 %" in figures


def test_finetune_cold_start_reaches_its_first_steps_loss(tmp_path):
    out = _cardbench(tmp_path / "runs", "finetune", "--model", "tiny", "--cold-start", "--seq-len", "16",
                     "--batch-size", "1", "--amp", "off", "--device", "cpu")
    assert out.returncode == 0, out.stderr[-2000:]
    [run_dir] = RunStore(tmp_path / "runs").list()
    m = _result(run_dir)
    _phases_add_up(m)
    assert 5 < m["first_loss"] < 15   # a random model's cross-entropy over 32,000 tokens: about ln(32000) = 10.4
    assert "first optimizer step's loss" in out.stdout


@pytest.mark.parametrize("argv, said", [
    (["llm", "--cold-start", "--fit-only"], "--cold-start and --fit-only are exclusive"),
    (["llm", "--cold-start", "lukewarm"], "invalid choice: 'lukewarm'"),
    (["finetune", "--cold-start", "--gpus", "2", "--device", "cpu"], "--cold-start and --gpus are exclusive"),
    (["llm", "--cold-start", "--weights", "/nonexistent/ckpt"], "/nonexistent/ckpt"),
])
def test_bad_input_is_one_line_and_exit_2_before_a_run_exists(tmp_path, argv, said):
    out = _cardbench(tmp_path / "runs", *argv, timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and said in out.stderr, out.stderr
    assert not (tmp_path / "runs").exists() or RunStore(tmp_path / "runs").list() == []


def test_a_checkpoint_of_a_short_context_takes_a_cold_start_that_the_default_pp_would_not_fit(tmp_path):
    """pp512 is beyond a 256-position checkpoint; a cold start runs no pp/tg, so its arguments pass the check."""
    import torch

    write_config(tmp_path, max_position_embeddings=256)
    write_safetensors(tmp_path / "model.safetensors", {"model.norm.weight": torch.ones(16)})
    check = {**os.environ, CHECK_ARGS_ENV: "cardbench run llm"}
    argv = [sys.executable, "-m", "workloads.llm", "--weights", str(tmp_path), "--input-len", "8"]
    refused = subprocess.run(argv, capture_output=True, text=True, env=check, timeout=60, cwd=REPO)
    assert refused.returncode == 2 and "pp512 needs 512 positions" in refused.stderr   # without --cold-start
    passed = subprocess.run([*argv, "--cold-start"], capture_output=True, text=True, env=check, timeout=60, cwd=REPO)
    assert passed.returncode == 0, passed.stderr
