"""The Llama-family decoder: its cache paths agree with the training forward, presets have the published sizes."""

import pytest

import torch
from workloads.models.llama.model import Llama, inverse_frequencies
from workloads.models.llama.presets import PRESETS, LlamaConfig, preset, preset_name

# a Qwen3-like shape (q/k norm, head_dim apart from hidden/heads) and a Qwen2-like one (bias, tied)
QWEN3 = LlamaConfig(family="qwen3", vocab_size=97, hidden_size=48, intermediate_size=64, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=1, head_dim_override=16, qk_norm=True,
                    max_position_embeddings=128)
QWEN2 = LlamaConfig(family="qwen2", vocab_size=97, hidden_size=48, intermediate_size=64, num_hidden_layers=2,
                    num_attention_heads=6, num_key_value_heads=2, attention_bias=True, tie_word_embeddings=True,
                    max_position_embeddings=128)


@pytest.mark.parametrize("config", [PRESETS["tiny"], QWEN3, QWEN2], ids=["tiny", "qwen3", "qwen2"])
def test_cache_paths_give_the_training_forwards_logits(config):
    torch.manual_seed(0)
    model = Llama(config).eval()
    model.init_random(1)
    for p in model.parameters():  # biases and norms off their defaults, so a path that skips them shows
        if p.dim() == 1:
            p.data.add_(torch.randn_like(p) * 0.1)
    idx = torch.randint(0, config.vocab_size, (2, 12))
    with torch.no_grad():
        full = model(idx)
        cache = model.new_cache(2, 16)
        pieces = [model(idx[:, :5], cache, 0), model(idx[:, 5:9], cache, 5)]  # a prefill, then a chunk at pos>0
        pieces += [model(idx[:, i:i + 1], cache, i) for i in range(9, 12)]
        static_cache = model.new_cache(2, 16)
        model(idx[:, :9], static_cache, 0)
        static = [model.forward_static(idx[:, i:i + 1], static_cache, torch.tensor([i])) for i in range(9, 12)]
    torch.testing.assert_close(torch.cat(pieces, 1), full, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(torch.cat(static, 1), full[:, 9:], atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="do not fit a cache of 16"):
        model(idx[:, :1], cache, 16)


def test_training_forward_backward_with_checkpointing_matches_without():
    model = Llama(PRESETS["tiny"])
    model.init_random(2)
    idx = torch.randint(0, 256, (2, 10))
    grads = []
    for flag in (False, True):
        model.zero_grad()
        model.checkpointing = flag
        torch.nn.functional.cross_entropy(model(idx[:, :-1]).flatten(0, 1), idx[:, 1:].flatten()).backward()
        grads.append(model.lm_head_t.grad.clone())
    torch.testing.assert_close(grads[0], grads[1])


def test_presets_have_the_published_parameter_counts():
    # the counts the models' cards state, in billions (rounded as they round them)
    published = {"Llama-3.2-1B": 1.24, "Llama-3.1-8B": 8.03, "Qwen2.5-0.5B": 0.49, "Qwen2.5-7B": 7.62,
                 "Qwen3-8B": 8.19, "Mistral-7B": 7.25}
    for name, billions in published.items():
        assert round(PRESETS[name].parameter_count() / 1e9, 2) == billions, name
    model = Llama(PRESETS["tiny"])
    assert sum(p.numel() for p in model.parameters()) == PRESETS["tiny"].parameter_count()
    assert preset("qwen2.5-0.5b") is PRESETS["Qwen2.5-0.5B"] and preset("nope") is None
    assert preset_name(QWEN3) == "custom" and preset_name(PRESETS["Mistral-7B"]) == "Mistral-7B"


def test_llama3_rope_scaling_keeps_high_frequencies_and_divides_low_ones():
    config = PRESETS["Llama-3.1-8B"]
    plain = inverse_frequencies(LlamaConfig(rope_theta=config.rope_theta, hidden_size=4096, num_attention_heads=32))
    scaled = inverse_frequencies(config)
    assert scaled[0] == plain[0]                          # wavelength 2 pi: far below 8192/4, kept
    torch.testing.assert_close(scaled[-1], plain[-1] / 8)  # longest wavelengths divided by the factor
