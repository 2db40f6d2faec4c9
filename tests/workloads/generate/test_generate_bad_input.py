"""Issue 16 item 10, generate: a config.json, a --weights path, a number or a size that cannot work is one line
naming what is wrong, exit 2, before the allocator or torch says it in its own words."""

import json
import subprocess
import sys

import pytest
import torch

from workloads import protocol
from workloads.child.harness import WorkloadError
from workloads.generate import config as gpt2_config
from workloads.generate import memory
from workloads.generate import weights as gpt2_weights
from workloads.generate.config import SIZES
from workloads.generate.gpt2 import GPT2, KVCache, parameter_count

GOOD = {"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 32, "n_positions": 64, "vocab_size": 101}


@pytest.mark.parametrize("field, value, said", [
    ("n_head", 0, "n_head is 0, not a whole number of 1 or more"),          # was ZeroDivisionError
    ("n_layer", -2, "n_layer is -2, not a whole number of 1 or more"),      # was torch's raw error
    ("n_embd", "768", 'n_embd is "768", not a whole number of 1 or more'),
    ("vocab_size", 1.5, "vocab_size is 1.5, not a whole number of 1 or more"),
    ("n_positions", None, "n_positions is null, not a whole number of 1 or more"),
    ("layer_norm_epsilon", -1, "layer_norm_epsilon is -1, not a number between 0 and 1"),
    ("n_layer", ..., "lacks n_layer"),
])
def test_a_config_field_that_cannot_work_is_named(tmp_path, field, value, said):
    data = dict(GOOD)
    if value is ...:
        del data[field]
    else:
        data[field] = value
    (tmp_path / "config.json").write_text(json.dumps(data))
    with pytest.raises(WorkloadError) as raised:
        gpt2_config.read_config(tmp_path)
    message = raised.value.message
    assert message.startswith(str(tmp_path / "config.json")) and message.endswith(said) and "\n" not in message
    assert raised.value.exit_code == 2


def test_a_good_config_still_reads(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({**GOOD, "n_layer": 2.0}))  # 2.0 is a whole number
    assert gpt2_config.read_config(tmp_path) == SIZES["tiny"]


def test_cardbench_run_refuses_zero_heads_in_one_line_before_any_run(tmp_path, monkeypatch, capsys):
    from tui import cli

    weights = tmp_path / "gpt2"
    weights.mkdir()
    (weights / "config.json").write_text(json.dumps({**GOOD, "n_head": 0}))
    (weights / "model.safetensors").write_bytes(b"")
    # `cardbench run` in this process, its argument check the real child (it imports torch: ~2 s idle); past the
    # CLI's 60 s the check gives up and the run goes ahead, which it did at load 16 in the parallel suite
    monkeypatch.setattr(cli, "_CHECK_TIMEOUT_S", 600)
    code = cli.main(["run", "generate", "--weights", str(weights), "--runs-dir", str(tmp_path / "runs")])
    out = subprocess.CompletedProcess([], code, *capsys.readouterr())
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"cardbench run generate: {weights / 'config.json'}: n_head is 0, not a whole number of 1 "
                          "or more (expected a Hugging Face GPT-2 config.json: n_layer, n_head, n_embd, n_positions, "
                          "vocab_size)\n")
    assert not (tmp_path / "runs").exists()


def test_a_weights_path_says_what_it_is(tmp_path):
    with pytest.raises(WorkloadError, match="'.*nope' does not exist"):
        gpt2_weights.weights_files(tmp_path / "nope")
    a_file = tmp_path / "gpt2.bin"
    a_file.write_bytes(b"")
    with pytest.raises(WorkloadError, match=f"weights directory '{a_file}' is not a directory"):
        gpt2_weights.weights_files(a_file)
    with pytest.raises(WorkloadError, match=f"no model.safetensors or pytorch_model.bin in {tmp_path}"):
        gpt2_weights.weights_files(tmp_path)


class Pickled:  # a file of anything but tensors: the safe loader refuses it, and torch advises the unsafe one
    pass


def test_a_damaged_or_foreign_weights_file_never_advises_loading_it_unsafely(tmp_path):
    torch.save({"wte.weight": Pickled()}, tmp_path / "pytorch_model.bin")
    with pytest.raises(WorkloadError) as raised:
        gpt2_weights.read_state_dict(tmp_path)
    said = raised.value.message + (raised.value.hint or "")
    assert f"holds {__name__}.Pickled, not tensors alone" in said
    for advice in ("weights_only", "trust", "\x1b["):
        assert advice not in said
    (tmp_path / "pytorch_model.bin").write_bytes(b"PK\x03\x04" + b"cut short" * 10)
    with pytest.raises(WorkloadError, match=r"cannot read .*pytorch_model.bin: [^\n]+$") as raised:
        gpt2_weights.read_state_dict(tmp_path)
    assert "weights_only" not in raised.value.message


def test_the_estimate_counts_the_weights_and_the_cache_the_run_allocates():
    config = SIZES["tiny"]
    model = GPT2(config)
    cache = KVCache(config, 3, 8 + 20, torch.float32, torch.device("cpu"))
    need = memory.estimate(config, batch=3, prompt_len=8, tokens=20, element_size=4)
    assert need.weights == parameter_count(model) * 4 and need.kv_cache == cache.nbytes
    assert 0 < need.activations and need.total == need.weights + need.kv_cache + need.activations


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
