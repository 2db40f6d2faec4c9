"""opscan's llama-decode source: the llm workload's prefill and decode steps as the scan records them (issue 24)."""

import argparse

import pytest
import torch

from workloads.opscan import cli, sources
from workloads.opscan.record import Recorder


@pytest.fixture(scope="module")
def ops():
    recorder = Recorder()
    sources.record_builtin("llama-decode", recorder, torch.device("cpu"), 0)
    found: dict[str, list] = {}
    for call in recorder.calls.values():
        found.setdefault(call.op, []).append(call)
    return found


def _modules(calls):
    return set().union(*(c.modules for c in calls))


def test_the_family_s_ops_are_recorded_with_the_modules_that_call_them(ops):
    attention = "llama-decode:layers.0.self_attn (Attention)"
    sdpa = ops["aten._scaled_dot_product_flash_attention_for_cpu.default"]
    assert attention in _modules(sdpa)
    # grouped-query: 4 query heads attend over 2 key/value heads as they are in the cache (enable_gqa, no repeat)
    assert any(c.args[0]["shape"][1] == 4 and c.args[1]["shape"][1] == 2 for c in sdpa)
    assert attention in _modules(ops["aten.neg.default"])  # rotate-half rotary
    assert "llama-decode:layers.1.input_layernorm (RMSNorm)" in _modules(ops["aten.rsqrt.default"])
    assert "llama-decode:layers.1.mlp (MLP)" in _modules(ops["aten.silu.default"])  # SwiGLU's gate
    # the eager decode step on the CPU: one query over the cache as a product, softmax and product
    assert attention in _modules(ops["aten._softmax.default"])
    # the fixed-shape step --cuda-graphs and --compile run: the cache written by index, SDPA under a position mask
    assert "aten.index_copy_.default" in ops and "aten.le.Tensor" in ops
    assert {p for cs in ops.values() for c in cs for p in c.phases} == {"forward"}  # inference: no backward


def test_the_scan_runs_it_by_default_and_by_name():
    base = dict(dtypes=None, model=None, opinfo=None, device="cpu", seed=0, repeats=1)
    assert cli.check(argparse.Namespace(sources="llama-decode", **base))["sources"] == ["llama-decode"]
    assert "llama-decode" in cli.check(argparse.Namespace(sources=None, **base))["sources"]


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_the_decode_sources_loop_is_the_workloads_greedy_generation(family):
    """gpt2-decode and llama-decode record opscan.greedy.decode: the same tokens as decoding.generate."""
    from workloads.models.gpt2 import model as gpt2
    from workloads.models.gpt2.config import SIZES
    from workloads.models.decoding import EagerDecoder, Sampling, generate
    from workloads.models.llama.model import Llama
    from workloads.opscan import greedy
    from workloads.opscan.llama_train import small_config

    torch.manual_seed(0)
    model = gpt2.GPT2(SIZES["tiny"]) if family == "gpt2" else Llama(small_config())
    model.init_random(0)
    model.eval()
    new_cache = (lambda: gpt2.KVCache(model.config, 1, 12, torch.float32, torch.device("cpu"))) if family == "gpt2" \
        else (lambda: model.new_cache(1, 12))
    prompt = torch.randint(0, model.config.vocab_size, (1, 5))
    with torch.no_grad():
        last = greedy.decode(model, new_cache(), prompt, 3)
    cache = new_cache()
    timings = generate(model, cache, EagerDecoder(model, cache), prompt, 4, Sampling(), torch.device("cpu"))
    assert torch.equal(last, timings.tokens[:, -1:])
