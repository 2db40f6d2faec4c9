"""The fit's estimate against the tensors a run holds alive, counted by torch's own MemTracker (a dispatch mode that
follows every storage an op makes until it is freed): exact on any device, no allocator or RSS in the way."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch.distributed._tools.mem_tracker import MemTracker

from workloads.models.llama import fit
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import PRESETS

TINY = PRESETS["tiny"]
# the Qwen 2.x and 3 extras (a q/k/v bias, q/k norms, a head width of its own) at tiny's size
QWENISH = dataclasses.replace(TINY, family="qwen3", attention_bias=True, qk_norm=True, head_dim_override=96,
                              tie_word_embeddings=True)


def _model(config) -> Llama:
    torch.manual_seed(0)
    model = Llama(config)
    model.init_random(0)
    return model


def _snapshot(tracker: MemTracker) -> dict[str, int]:
    return {str(getattr(k, "value", k)): v for k, v in tracker.get_tracker_snapshot("peak")[torch.device("cpu")].items()}


@pytest.mark.parametrize("config", [TINY, QWENISH], ids=["tiny", "qwen-like"])
@pytest.mark.parametrize("batch,prompt", [(1, 256), (3, 64)])
def test_a_prefill_s_live_tensors_are_what_the_inference_estimate_counts(config, batch, prompt):
    model = _model(config).eval()
    idx = torch.randint(0, config.vocab_size, (batch, prompt))
    cache = model.new_cache(batch, prompt + 16)
    tracker = MemTracker()
    tracker.track_external(model, cache, idx)
    with torch.no_grad(), tracker:
        model(idx, cache, 0, last_only=True)
    live = _snapshot(tracker)["Activation"]
    e = fit.inference(config, batch, prompt + 16, prompt, 4)
    logits_row = batch * config.vocab_size * 4     # counted beside: the head's output, once the blocks' are freed
    assert e.activations - logits_row == pytest.approx(live, rel=0.01), (e.activations, live)
    assert e.kv_cache == cache.data.numel() * cache.data.element_size()


@pytest.mark.parametrize("checkpointing", [False, True], ids=["kept", "checkpointed"])
def test_a_full_fine_tuning_step_never_holds_more_than_the_training_estimate(checkpointing):
    """Two AdamW steps (the second has the moments) of tiny in fp32: the live peak is under the estimate, and not far
    under (the estimate holds the activations and the gradients at once, where a step frees one as it forms the
    other)."""
    model = _model(TINY).train()
    model.checkpointing = checkpointing
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    batch, seq = 2, 96
    x = torch.randint(0, TINY.vocab_size, (batch, seq))
    y = torch.randint(0, TINY.vocab_size, (batch, seq))
    tracker = MemTracker()
    tracker.track_external(model, optimizer, x, y)
    with tracker:
        for _ in range(2):
            tracker.reset_mod_stats()
            model(x, targets=y).backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
    live = _snapshot(tracker)["Total"]
    e = fit.step_memory(TINY, batch, seq, "off", "full", checkpointing)
    # the workspace line holds what no term names: here the rotary table the training forward keeps (128 KiB)
    assert live <= e.total, (live, e.total)
    assert live > 0.8 * e.total, (live, e.total)
