"""One KV cache class for GPT-2 and the Llama family (workloads/models/kv_cache.py): its layout in each."""

from __future__ import annotations

import pytest
import torch

from workloads.models import kv_cache
from workloads.models.gpt2 import model as gpt2
from workloads.models.gpt2.config import SIZES
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import preset

CPU = torch.device("cpu")


def test_both_models_cache_in_the_one_layout():
    config = SIZES["tiny"]
    theirs = gpt2.KVCache(config, 3, 10, torch.float32, CPU)
    assert isinstance(theirs, kv_cache.KVCache)
    assert theirs.data.shape == (config.n_layer, 2, 3, config.n_head, 10, config.head_dim)
    llama = Llama(preset("tiny"))
    ours = llama.new_cache(3, 10)
    c = llama.config
    assert isinstance(ours, kv_cache.KVCache)  # grouped-query: the key heads only, and the rotary table beside
    assert ours.data.shape == (c.num_hidden_layers, 2, 3, c.num_key_value_heads, 10, c.head_dim)
    assert ours.cos.shape == ours.sin.shape == (10, c.head_dim)
    keys, values = ours.layer(1)
    assert keys.data_ptr() == ours.data[1, 0].data_ptr() and values.shape == (3, c.num_key_value_heads, 10, c.head_dim)
    assert ours.nbytes == ours.data.numel() * 4


def test_positions_past_the_cache_are_refused_by_both():
    with pytest.raises(ValueError, match=r"positions 8\.\.10 do not fit a cache of 10"):
        gpt2.GPT2(SIZES["tiny"])(torch.zeros(1, 3, dtype=torch.long), gpt2.KVCache(SIZES["tiny"], 1, 10, torch.float32, CPU), 8)
    llama = Llama(preset("tiny"))
    with pytest.raises(ValueError, match=r"positions 8\.\.10 do not fit a cache of 10"):
        llama(torch.zeros(1, 3, dtype=torch.long), llama.new_cache(1, 10), 8)
