"""Issue 16 item 10, generate: a config.json, a number or a size that cannot work is one line naming what is wrong,
exit 2, before the allocator or torch says it in its own words (the config.json and --weights readers themselves:
tests/workloads/models/gpt2)."""

import json
import subprocess
import sys

import pytest
from tiny_gpt2 import TINY, config_json

from workloads import protocol
from workloads.child.harness import WorkloadError
from workloads.generate import memory
from workloads.models.gpt2.config import SIZES

GOOD = config_json(TINY)


def test_cardbench_run_refuses_zero_heads_in_one_line_before_any_run(tmp_path, monkeypatch, capsys):
    from tui import cli
    from tui.cli import check_args

    weights = tmp_path / "gpt2"
    weights.mkdir()
    (weights / "config.json").write_text(json.dumps({**GOOD, "n_head": 0}))
    (weights / "model.safetensors").write_bytes(b"")
    # `cardbench run` in this process, its argument check the real child (it imports torch: ~2 s idle); past the
    # CLI's 60 s the check gives up and the run goes ahead, which it did at load 16 in the parallel suite
    monkeypatch.setattr(check_args, "_CHECK_TIMEOUT_S", 600)
    code = cli.main(["run", "generate", "--weights", str(weights), "--runs-dir", str(tmp_path / "runs")])
    out = subprocess.CompletedProcess([], code, *capsys.readouterr())
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"cardbench run generate: {weights / 'config.json'}: n_head is 0, not a whole number of 1 "
                          "or more (expected a Hugging Face GPT-2 config.json: n_layer, n_head, n_embd, n_positions, "
                          "vocab_size)\n")
    assert not (tmp_path / "runs").exists()


def test_a_run_above_the_free_memory_is_refused_with_the_figures(monkeypatch):
    monkeypatch.setattr(memory, "free_bytes", lambda device: 8 * 2**30)
    with pytest.raises(WorkloadError) as raised:
        memory.check_fits(SIZES["124M"], "124M", 100000, 32, 256, "bf16", 2, "cuda:0")
    message = raised.value.message
    assert message.startswith("GPT-2 124M in bf16 at batch 100000 x 288 positions needs about 1.0 TiB (weights 237 MiB")
    assert "KV cache 988.8 GiB" in message and message.endswith("cuda:0 has 8.0 GiB free")
    assert raised.value.exit_code == 2 and "--batch-size" in raised.value.hint
    memory.check_fits(SIZES["124M"], "124M", 1, 32, 256, "bf16", 2, "cuda:0")  # batch 1 fits: no refusal


def test_generate_batch_100000_on_the_cpu_ends_on_the_estimate_not_the_allocator():
    proc = subprocess.run([sys.executable, "-m", "workloads.generate", "--device", "cpu", "--batch-size", "100000"],
                          capture_output=True, text=True, timeout=120)
    events = [protocol.parse_line(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    error = events[-2]
    assert error.kind == "error" and "at batch 100000 x 288 positions needs about" in error.message
    assert "cpu has" in error.message and "free" in error.message and "allocate" not in error.message
