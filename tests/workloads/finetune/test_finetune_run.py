"""`cardbench run finetune` on the tiny preset: LoRA and full runs, FSDP on 2 gloo ranks, bad input (issue 25)."""

import json
import os
import subprocess
import sys

import pytest

from workloads.facts.formatting import format_bytes
from paths import REPO
from two_nodes import kill_tagged, left_behind, start_nodes

from tui.figures import result_text
from workloads.finetune.result_record import FinetuneResult
from workloads.protocol import CHECK_ARGS_ENV

SMALL = ["--device", "cpu", "--seq-len", "16", "--amp", "off", "--threads", "1"]


def _start(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "workloads.finetune", *args], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})


def _finish(proc):
    out, err = proc.communicate(timeout=240)
    if isinstance(out, bytes):  # two_nodes' processes pipe bytes
        out, err = out.decode(), err.decode(errors="replace")
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return proc.returncode, events, err


def _events(events, kind):
    return [e for e in events if e["event"] == kind]


def _assert_every_figure_declared(result):
    """Each key of a result is a figure of FinetuneResult, and the RESULT line says it by its label (a key the
    record left out would be said raw, as written)."""
    assert [key for key in result if FinetuneResult.figure(key) is None] == []
    line = result_text("finetune", result)
    assert [key for key in result if FinetuneResult.figure(key).label("en") not in line] == [], line


CHECKPOINT = {"model_type": "llama", "vocab_size": 300, "hidden_size": 64, "intermediate_size": 96,
              "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
              "max_position_embeddings": 256, "rms_norm_eps": 1e-5}
WEIGHTS_RUN = [*SMALL, "--mode", "lora", "--amp", "bf16", "--steps", "4", "--batch-size", "4", "--warmup", "0",
               "--lr", "1e-4"]


def _checkpoint(directory):
    """A small Llama checkpoint as transformers saves one (config.json, model.safetensors, its names and out x in
    layout), random weights of std 0.1: their first loss is not what the presets' N(0, 0.02) draw gives."""
    import torch
    from safetensors.torch import save_file

    from workloads.models.llama.checkpoint import expected_shapes
    from workloads.models.llama.hf_config import read_config

    (directory / "config.json").write_text(json.dumps(CHECKPOINT))
    gen = torch.Generator().manual_seed(5)
    save_file({name: torch.randn(shape, generator=gen) * 0.1 + (1.0 if "norm" in name else 0.0)
               for name, shape in expected_shapes(read_config(directory)).items()}, directory / "model.safetensors")
    return directory


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs at once (the CPUs are shared; each process uses one thread): LoRA on a text file with the float64
    check, full with accumulation and checkpointing, the same 5 full steps as 1 process, as 2 FSDP ranks and as
    two "nodes" of one rank each on 127.0.0.1 (static rendezvous, tests/two_nodes.py), and LoRA with its frozen
    base in bf16 on a checkpoint (--weights) as 1 process and as 2 FSDP ranks."""
    text = tmp_path_factory.mktemp("data") / "corpus.txt"
    text.write_text("The card trains a model. " * 40)
    weights = _checkpoint(tmp_path_factory.mktemp("weights"))
    procs = {
        "lora": _start(*SMALL, "--mode", "lora", "--steps", "3", "--batch-size", "2", "--warmup", "1",
                       "--data", str(text), "--check-against-cpu", "2"),
        "full": _start(*SMALL, "--mode", "full", "--steps", "2", "--batch-size", "4", "--grad-accum", "2",
                       "--activation-checkpointing", "--warmup", "1", "--check-against-cpu", "2", "--amp", "bf16",
                       env={"CARDBENCH_INJECT_AMP_FAILURE": "RMSNorm"}),
        "one": _start(*SMALL, "--mode", "full", "--steps", "5", "--batch-size", "4", "--warmup", "0"),
        "fsdp": _start(*SMALL, "--mode", "full", "--steps", "5", "--batch-size", "4", "--warmup", "0", "--gpus", "2"),
        "weights_one": _start(*WEIGHTS_RUN, "--weights", str(weights)),
        "weights_fsdp": _start(*WEIGHTS_RUN, "--weights", str(weights), "--gpus", "2"),
    }
    tag = f"finetune-nodes-{os.getpid()}"
    nodes = start_nodes(["-m", "workloads.finetune", *SMALL, "--mode", "full", "--steps", "5", "--batch-size", "4",
                         "--warmup", "0", "--gpus", "1", "--dist-timeout", "120"], tag)
    procs.update({"node0": nodes[0], "node1": nodes[1]})
    try:
        finished = {name: _finish(p) for name, p in procs.items()}
        finished["left_behind"] = left_behind(tag)
        finished["weights"] = weights
        return finished
    finally:
        kill_tagged(tag)


def test_lora_run_on_a_text_file_reports_its_figures(runs):
    code, events, log = runs["lora"]
    assert code == 0, log
    steps = _events(events, "step")
    assert [s["step"] for s in steps] == [1, 2, 3] and all(s["unit"] == "tokens/s" and s["loss"] > 0 for s in steps)
    result = _events(events, "result")[0]["metrics"]
    assert result["tokens_per_s"] > 0 and result["tokens_per_s_per_device"] == result["tokens_per_s"]
    assert result["mfu"] is None and "no rated peak" in result["rated_words"]  # the CPU has no rated figure
    assert result["mfu_formula"].startswith("4N + 2N_trainable + 12·L·H·Q·T")
    assert 0 < result["trainable_parameters"] < result["parameters"] / 10
    assert 0 <= result["data_wait_fraction"] < 1 and result["fit_estimate_bytes"] > 0
    # beside the estimate, the peak's growth over the process before the model, not the whole RSS with torch's
    # libraries in it (issue 36 item 9: "peak 942 MiB" beside "estimate 141 MiB")
    growth, peak = result["peak_memory_growth_bytes"], result["peak_memory_bytes"]
    assert 0 < growth < peak and growth < peak / 2, (growth, peak, result["fit_estimate_bytes"])
    assert f"grown {format_bytes(growth)} since the start (estimate of its tensors " in log
    assert "byte-level tokens: no tokenizer given" in log and "trainable parameters: " in log
    assert result["cpu_check_ok"] and result["cpu_check"].startswith("PASS: the first 2 losses")
    _assert_every_figure_declared(result)   # the CPU check's figures too


def test_full_bf16_run_falls_back_for_the_failing_module_and_matches_float64(runs):
    """Accumulation, checkpointing, and resnet50's fallback rule: the failing module named, autocast off for it."""
    code, events, log = runs["full"]
    assert code == 0, log
    fallback = _events(events, "fallback")[0]
    assert fallback["layer"] == "layers.0.input_layernorm" and fallback["op"] == "RMSNorm"
    assert "autocast off for RMSNorm; the rest stays in bf16" in fallback["action"]
    result = _events(events, "result")[0]["metrics"]
    assert result["precision"] == "bf16 (fp32: RMSNorm)"
    assert result["trainable_parameters"] == result["parameters"] and result["micro_batch_size"] == 2
    assert result["mfu_formula"].startswith("6N + 12·L·H·Q·T")
    assert result["cpu_check_ok"] and result["cpu_check_bound"] == 3e-2, result["cpu_check"]
    _assert_every_figure_declared(result)   # a full run's, with a fallback


def test_two_fsdp_ranks_and_one_process_agree_on_the_loss(runs):
    (code1, one, log1), (code2, two, log2) = runs["one"], runs["fsdp"]
    assert code1 == 0 and code2 == 0, log1 + log2
    assert "launching 2 processes" in log2 and _events(two, "start")[0]["config"]["world_size"] == 2
    last_one, last_two = _events(one, "step")[-1]["loss"], _events(two, "step")[-1]["loss"]
    assert _events(two, "step")[-1]["step"] == 5
    assert abs(last_two - last_one) / abs(last_one) < 1e-5


def test_each_fsdp_rank_holds_half_the_parameters_and_no_full_copy(runs):
    """--gpus N builds on the meta device and materialises its shards (workloads/finetune/meta_init.py)."""
    one, two = _events(runs["one"][1], "start")[0]["config"], _events(runs["fsdp"][1], "start")[0]["config"]
    whole = one["parameter_bytes_per_rank"]
    assert whole == one["parameters"] * 4 and one["largest_full_tensor_bytes"] is None  # fp32, built whole
    # Shard(0) over 2 ranks: half, give or take a padded row of each parameter whose first dimension is odd
    assert abs(two["parameter_bytes_per_rank"] - whole / 2) < whole * 0.01
    assert two["largest_full_tensor_bytes"] < whole / 4  # one parameter at a time (tiny: the 8192 x 512 table)


def _first_loss_of(directory):
    """Step 1's loss computed here from the checkpoint: LoRA's B starts at zero, so it is the base model's, held in
    bf16 and run under bf16 autocast as the workload's LoRA holds it; the batch is the workload's synthetic one."""
    import torch

    from workloads.finetune import data
    from workloads.models.loss import lm_loss
    from workloads.models.llama.checkpoint import load_dir
    from workloads.models.llama.hf_config import read_config
    from workloads.models.llama.model import Llama

    model = Llama(read_config(directory))
    load_dir(model, directory)
    tokens = data.synthetic(CHECKPOINT["vocab_size"], 4, 16, 0).batch_of(1)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        return float(lm_loss(model.to(torch.bfloat16), tokens))


def test_a_checkpoint_read_by_rank_0_reaches_each_fsdp_rank_s_shards(runs):
    """--weights with --gpus 2: rank 0 reads, set_model_state_dict broadcasts (workloads/finetune/meta_init.py), and
    the sharded LoRA with its frozen base in bf16 trains as one process does."""
    (code1, one, log1), (code2, two, log2) = runs["weights_one"], runs["weights_fsdp"]
    assert code1 == 0 and code2 == 0, log1[-2000:] + log2[-2000:]
    config_one, config_two = _events(one, "start")[0]["config"], _events(two, "start")[0]["config"]
    assert config_two["world_size"] == 2 and config_two["vocab_size"] == CHECKPOINT["vocab_size"]
    # the frozen base in bf16 and the adapters in fp32, split over 2 ranks: half, give or take a padded row
    assert abs(config_two["parameter_bytes_per_rank"] - config_one["parameter_bytes_per_rank"] / 2) < 2000
    losses_one, losses_two = [s["loss"] for s in _events(one, "step")], [s["loss"] for s in _events(two, "step")]
    assert len(losses_one) == len(losses_two) == 4
    want = _first_loss_of(runs["weights"])
    # bf16 products over the checkpoint's weights: the same per row on one process and on a rank of half the batch
    # (0.0 apart on this machine); 1e-4 relative is 1/40 of bf16's rounding, so weights not loaded fail by far
    assert abs(losses_one[0] - want) / want < 1e-4 and abs(losses_two[0] - want) / want < 1e-4
    # once the adapters are non-zero, bf16 products over half the batch and each rank's bf16 weight gradients
    # (8-bit mantissa, 4e-3), rounded before gloo adds them, part the two runs: 4e-5 relative after 4 steps here
    # (the same runs with --amp off agree to 1e-7), so 1e-3 leaves 20x for another CPU's bf16 kernels
    assert abs(losses_two[-1] - losses_one[-1]) / losses_one[-1] < 1e-3


def test_two_nodes_of_one_rank_and_one_process_agree_on_the_loss(runs):
    """Issue 25 item 2: the same 5 steps sharded over two torchrun "nodes" on 127.0.0.1; node 0 holds global rank 0."""
    (code1, one, log1), (code0, node0, log0), (code_1, node1, log_1) = runs["one"], runs["node0"], runs["node1"]
    assert (code1, code0, code_1) == (0, 0, 0), log1[-2000:] + log0[-2000:] + log_1[-2000:]
    assert _events(node0, "start")[0]["config"]["world_size"] == 2
    assert [e["event"] for e in node1] == ["warning", "end"] and node1[0]["code"] == "multinode_not_rank0"
    steps = _events(node0, "step")
    assert [s["step"] for s in steps] == [1, 2, 3, 4, 5]
    last_one = _events(one, "step")[-1]["loss"]
    # equal to the last bit on this machine; gloo may sum the ranks' gradients in another order than one process
    # reduces its batch, a float32 rounding of ~1e-7 relative: the bound of 1e-5 leaves 100x margin
    assert abs(steps[-1]["loss"] - last_one) / abs(last_one) < 1e-5
    assert runs["left_behind"] == []


def _check(*args, tmp_path=None):
    env = {**os.environ, CHECK_ARGS_ENV: "cardbench run finetune"}
    return subprocess.run([sys.executable, "-m", "workloads.finetune", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, env=env, cwd=REPO)


@pytest.mark.parametrize("args, said", [
    (["--lora-rank", "0"], "--lora-rank"),
    (["--lora-targets", "q_proj,v_proj"], "--lora-targets q_proj,v_proj matches no product of the model"),
    (["--seq-len", "5000"], "--seq-len 5000 is beyond tiny's context of 4096"),
    (["--batch-size", "6", "--grad-accum", "4"], "--batch-size 6 is not divisible by 1 rank(s) x 4 accumulation"),
    (["--device", "cpu", "--gpus", "2", "--batch-size", "3"], "--batch-size 3 is not divisible by 2 rank(s)"),
    (["--data", "/nonexistent/corpus.txt"], "--data /nonexistent/corpus.txt: no such file"),
    (["--compile", "layer"], "argument --compile: invalid choice: 'layer' (choose from 'block', 'model')"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, said):
    out = _check(*args)
    assert out.returncode == 2, out.stderr
    assert said in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_empty_or_binary_data_is_refused(tmp_path):
    (tmp_path / "empty.txt").write_text("\n\n")
    (tmp_path / "blob.jsonl").write_bytes(b"\x00\x01\x02binary" * 10)
    for name, said in (("empty.txt", "is empty"), ("blob.jsonl", "is not text (it holds NUL bytes)")):
        out = _check("--data", str(tmp_path / name))
        assert out.returncode == 2 and said in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_out_of_memory_at_step_1_is_one_line_with_the_estimate_and_the_batch_that_fits():
    code, events, log = _finish(_start(*SMALL, "--steps", "2", "--batch-size", "2",
                                       env={"CARDBENCH_INJECT_OOM_BATCH": "1"}))
    assert code == 1 and "Traceback" not in log
    error = _events(events, "error")[0]["message"]
    assert error.startswith("out of memory at step 1: a micro-batch of 2 x 16 tokens needs about")
    assert "by the estimate" in error and "the largest micro-batch that would fit is about" in error
