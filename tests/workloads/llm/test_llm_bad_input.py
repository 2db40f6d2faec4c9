"""Issue 24's bad input: one line, exit 2, no traceback, and (through `cardbench run`) no run directory."""

import json
import os
import subprocess
import sys

import pytest
from paths import REPO

from workloads.protocol import CHECK_ARGS_ENV


def _check(*args, tmp_path=None):
    """The workload's argument check, as `cardbench run llm` starts it before it records a run."""
    env = {**os.environ, CHECK_ARGS_ENV: "cardbench run llm"}
    return subprocess.run([sys.executable, "-m", "workloads.llm", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, env=env, cwd=REPO)


@pytest.mark.parametrize("args, said", [
    (["--model", "Llama-9B"], "cardbench run llm: unknown model 'Llama-9B'; known: Llama-3.2-1B, Llama-3.1-8B, "
                              "Qwen2.5-0.5B, Qwen2.5-7B, Qwen3-8B, Mistral-7B, tiny"),
    (["--model", "Qwen2.5-0.5B", "--input-len", "32000", "--output-len", "1000"],
     "cardbench run llm: input + output is 33000 positions, beyond Qwen2.5-0.5B's context of 32768"),
    (["--input-len", "128,256"], "cardbench run llm: --input-len 128,256: a list needs --sweep"),
    (["--batch-size", "0"], "each value must be a whole number of 1 or more"),
    (["--cuda-graphs", "--compile"], "cardbench run llm: --compile, --cuda-graphs and --eager are exclusive"),
    (["--eager", "--compile"], "cardbench run llm: --compile, --cuda-graphs and --eager are exclusive"),
    # issue 40: llama-bench's tests
    (["--model", "Qwen2.5-0.5B", "--depth", "0,4096,32768"],
     "cardbench run llm: pp512 @ d32768 needs 33280 positions, beyond Qwen2.5-0.5B's context of 32768"),
    (["--depth", "4096"], "cardbench run llm: pp512 @ d4096 needs 4608 positions, beyond tiny's context of 4096"),
    (["--pp", "0", "--depth", "4000"], "cardbench run llm: tg128 @ d4000 needs 4128 positions, beyond tiny's"),
    (["--pp", "-5"], "'-5': each test length must be a whole number of 1 or more (0 alone: no such test)"),
    (["--tg", "128,0"], "'128,0': each test length must be a whole number of 1 or more (0 alone: no such test)"),
    (["--tg", "x"], "'x' is not a comma-separated list of whole numbers"),
    (["--depth", "-1"], "'-1': each depth must be a whole number of 0 or more"),
    (["--output", "table.txt"], "--output 'table.txt': not a format (md, csv, json, jsonl) nor a file ending .md"),
    (["--output", "/nonexistent-dir/bench.csv"],
     "--output '/nonexistent-dir/bench.csv': the folder /nonexistent-dir does not exist"),
    (["--output", "/"], "--output '/' is a folder"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, said):
    out = _check(*args)
    assert out.returncode == 2, out.stderr
    assert said in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_output_to_a_folder_that_cannot_be_written_is_refused(tmp_path):
    """A read-only folder (os.access says so: root reads past the mode bits, so the check runs as it would for a user
    only where the test is not root; a file in place of the folder is refused for everyone)."""
    (tmp_path / "file").write_text("")
    out = _check("--output", str(tmp_path / "file" / "bench.csv"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert f"the folder {tmp_path / 'file'} does not exist" in out.stderr
    if os.geteuid() != 0:
        (tmp_path / "ro").mkdir(mode=0o500)
        out = _check("--output", str(tmp_path / "ro" / "bench.csv"))
        assert out.returncode == 2 and "cannot be written (no write permission)" in out.stderr


def test_weights_of_another_architecture_are_refused_by_name(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 2}))
    out = _check("--weights", str(tmp_path))
    assert out.returncode == 2
    assert f"{tmp_path / 'config.json'} describes a 'gpt2' model, not one of llama, mistral, qwen2, qwen3" in out.stderr
    assert out.stderr.count("\n") == 1
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama", "rope_scaling": {"rope_type": "yarn"},
                                                      "vocab_size": 9, "hidden_size": 8, "intermediate_size": 8,
                                                      "num_hidden_layers": 1, "num_attention_heads": 2}))
    out = _check("--weights", str(tmp_path))
    assert out.returncode == 2 and "rotary scaling 'yarn' is not implemented" in out.stderr


def test_good_arguments_pass_the_check():
    out = _check("--model", "Llama-3.1-8B", "--sweep", "--input-len", "128,2048", "--batch-size", "1,8")
    assert out.returncode == 0 and out.stderr == ""
    out = _check("--model", "Qwen2.5-0.5B", "--pp", "512,2048", "--tg", "128", "--depth", "0,4096,16384", "-r", "3",
                 "--output", "jsonl")
    assert out.returncode == 0 and out.stderr == ""


def test_cardbench_run_refuses_an_unknown_preset_before_any_run_directory(tmp_path):
    out = subprocess.run([sys.executable, "-m", "tui.cli", "run", "llm", "--model", "gpt-5", "--runs-dir",
                          str(tmp_path / "runs")], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         timeout=120, cwd=REPO)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("cardbench run llm: unknown model 'gpt-5'; known: Llama-3.2-1B, ")
    assert out.stderr.count("\n") == 1 and not (tmp_path / "runs").exists()


def test_a_prompt_without_the_tokenizers_package_says_what_to_install(tmp_path, monkeypatch):
    from workloads.child.harness import WorkloadError
    from workloads.llm import prompt

    monkeypatch.setitem(sys.modules, "tokenizers", None)  # import fails as if it were not installed
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(WorkloadError) as refused:
        prompt.tokenize(tmp_path, "hello", 32)
    # generate's own hint names --prompt-len, which llm does not have
    assert "`tokenizers` package" in str(refused.value) and "--prompt-len" not in refused.value.hint
    assert "pip install tokenizers" in refused.value.hint
