"""opscan's llama-train source: the finetune workload's step as the scan records it (issue 25 item 5)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # this checkout, wherever it is

import pytest  # noqa: E402
import torch  # noqa: E402

from workloads.opscan import cli, sources  # noqa: E402
from workloads.opscan.record import Recorder  # noqa: E402


@pytest.fixture(scope="module")
def calls():
    recorder = Recorder()
    sources.record_builtin("llama-train", recorder, torch.device("cpu"), 0)
    return list(recorder.calls.values())


def _by_op(calls):
    found: dict[str, list] = {}
    for call in calls:
        found.setdefault(call.op, []).append(call)
    return found


def test_the_family_s_ops_are_recorded_with_the_modules_that_call_them(calls):
    ops = _by_op(calls)
    modules = {op: set().union(*(c.modules for c in cs)) for op, cs in ops.items()}
    phases = {op: set().union(*(c.phases for c in cs)) for op, cs in ops.items()}
    # grouped-query SDPA, its backward, SwiGLU's silu and RMSNorm's pieces, each charged to its module
    attention = "llama-train:layers.0.self_attn (Attention)"
    assert attention in modules["aten._scaled_dot_product_flash_attention_for_cpu.default"]
    assert attention in modules["aten._scaled_dot_product_flash_attention_for_cpu_backward.default"]
    assert attention in modules["aten.neg.default"]  # rotate-half rotary
    assert "llama-train:layers.1.mlp (MLP)" in modules["aten.silu_backward.default"]
    assert "llama-train:layers.0.input_layernorm (RMSNorm)" in modules["aten.rsqrt.default"]
    assert phases["aten.silu_backward.default"] == {"backward"}
    assert "optimizer" in phases["aten.addcdiv_.default"]  # AdamW's update of the master weights
    assert "aten.pow.Scalar" not in ops  # the rotary table is built before the recording (see llama_train.py)


def test_the_step_is_recorded_under_bf16_autocast(calls):
    ops = _by_op(calls)
    # autocast casts the fp32 master weights and runs the products in bf16 ...
    casts = [c for c in ops["aten._to_copy.default"] if c.kwargs.get("dtype") == {"dtype": "bfloat16"}]
    assert casts
    assert any(c.args[0]["dtype"] == "bfloat16" for c in ops["aten.mm.default"])
    # ... and keeps the loss's log-softmax in fp32 (the logits are cast up for the loss, as the workload does)
    assert all(c.args[0]["dtype"] == "float32" for c in ops["aten._log_softmax.default"])


def test_the_option_check_knows_the_source():
    args = argparse.Namespace(dtypes=None, sources="llama-train", model=None, opinfo=None, device="cpu", seed=0,
                              repeats=1)
    assert cli.check(args)["sources"] == ["llama-train"]
