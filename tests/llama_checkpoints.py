"""Small Llama-family checkpoints for the tests: a config.json with any field changed, and transformers' own
models saved on the spot (for the reader's and the loader's tests, and llm's)."""

import json

import torch

SHAPE = {"model_type": "llama", "vocab_size": 64, "hidden_size": 16, "intermediate_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}


def write_config(directory, **fields):
    """``directory``/config.json: SHAPE with ``fields`` over it; returns ``directory``."""
    (directory / "config.json").write_text(json.dumps({**SHAPE, **fields}))
    return directory


COMMON = dict(vocab_size=300, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=256)
LLAMA3_ROPE = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 64}


def save_transformers(kind, directory, **save):
    """A tiny model of ``kind`` (llama, qwen2, qwen3) built by transformers, saved to ``directory``; the model."""
    import transformers  # lazy: optional and slow to import; the tests that call this skip without it

    torch.manual_seed(0)
    if kind == "llama":  # GQA, Llama-3 scaled rotary, untied head
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
            **COMMON, rope_theta=500000.0, rope_scaling=LLAMA3_ROPE, tie_word_embeddings=False))
    elif kind == "qwen2":  # GQA, q/k/v bias, tied head
        model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**COMMON, tie_word_embeddings=True))
    else:  # q/k norm, head_dim apart from hidden / heads
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**COMMON, head_dim=32))
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:  # norms and biases off their defaults, so one skipped would change the tokens
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(directory, **save)
    return model.eval()
