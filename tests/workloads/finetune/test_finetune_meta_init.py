"""Sharded runs built on the meta device and materialised per shard; LoRA's frozen base in bf16 (issue 25)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # this checkout, wherever it is

import pytest  # noqa: E402
import torch  # noqa: E402

from workloads.finetune import flops, lora, meta_init, step  # noqa: E402
from workloads.models.llama.presets import LlamaConfig  # noqa: E402

SMALL = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=64)
TARGETS = ("qkv", "down_proj")


def _args(mode, amp):
    return argparse.Namespace(mode=mode, amp=amp, lora_target_names=TARGETS if mode == "lora" else (), lora_rank=4,
                              lora_alpha=8.0, lora_dropout=0.0, weights=None, seed=3)


def _whole(mode, amp):
    """What one process builds: the workload's own code (Setup._built_whole calls it)."""
    model, adapted = step.built_whole(SMALL, _args(mode, amp), torch.device("cpu"))
    assert len(adapted) == (4 if mode == "lora" else 0)
    return model


@pytest.mark.parametrize("mode, amp", [("full", "bf16"), ("lora", "off"), ("lora", "bf16")])
def test_the_meta_built_model_materialises_to_the_single_process_s_weights(mode, amp):
    model, adapted = meta_init.build(SMALL, _args(mode, amp))
    assert all(p.is_meta for p in model.parameters())  # nothing allocated before the shards are known
    assert len(adapted) == (4 if mode == "lora" else 0)
    largest = meta_init.materialise(model, torch.device("cpu"), 3)
    whole = _whole(mode, amp).state_dict()
    mine = model.state_dict()
    assert mine.keys() == whole.keys()
    for name, value in whole.items():  # the same draws in the same order: equal to the bit
        assert mine[name].dtype == value.dtype and torch.equal(mine[name], value), name
    # one full parameter at a time, in fp32: never the whole model (here the largest is gate_up, 32 x 96)
    assert largest == max(v.numel() for v in whole.values()) * 4 < SMALL.parameter_count() * 4 / 4


@pytest.mark.parametrize("mode, amp", [("full", "bf16"), ("lora", "fp16"), ("lora", "bf16")])
def test_the_fit_estimate_counts_the_weights_as_the_model_holds_them(mode, amp):
    model = _whole(mode, amp)
    held = meta_init.local_parameter_bytes(model)
    assert held == flops.held_weight_bytes(SMALL, mode, amp, 4, TARGETS)
    estimate = flops.step_memory(SMALL, 2, 16, amp, mode, False, 4, TARGETS)
    trained = lora.trainable(model)
    # plus autocast's 16-bit copy of each fp32 weight; a bf16 base is read as it is, only the adapters are cast
    cast = trained * 2 if (mode, amp) == ("lora", "bf16") else SMALL.parameter_count() * 2
    assert estimate.weights == held + cast


def test_lora_under_bf16_holds_its_frozen_base_in_half_the_bytes():
    fp32, bf16 = _whole("lora", "off"), _whole("lora", "bf16")
    frozen = [n for n, p in fp32.named_parameters() if not p.requires_grad]
    assert all(dict(bf16.named_parameters())[n].dtype == torch.bfloat16 for n in frozen)
    assert all(p.dtype == torch.float32 for p in bf16.parameters() if p.requires_grad)  # the adapters train in fp32
    trained = lora.trainable(bf16)
    assert meta_init.local_parameter_bytes(bf16) == SMALL.parameter_count() * 2 + trained * 4
    assert meta_init.local_parameter_bytes(fp32) == (SMALL.parameter_count() + trained) * 4
    idx = torch.randint(0, SMALL.vocab_size, (2, 9), generator=torch.Generator().manual_seed(0))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = bf16(idx).float().logsumexp(-1).mean()
    loss.backward()  # the adapters get gradients through the bf16 base
    assert all(p.grad is not None for p in bf16.parameters() if p.requires_grad)
