"""A tiny GPT-2 and its weights saved as Hugging Face saves them: for the model's tests and generate's."""

import json

import torch

from workloads.models.gpt2.config import SIZES
from workloads.models.gpt2.model import GPT2

TINY = SIZES["tiny"]


def tiny_model(seed=0, config=TINY):
    model = GPT2(config)
    model.init_random(seed)
    return model.eval().requires_grad_(False)


def hf_state_dict(model, prefix="transformer."):
    """``model``'s weights named and laid out as Hugging Face's GPT2LMHeadModel saves them."""
    out = {}
    for name, p in model.named_parameters():
        if name == "wte_t":
            out[prefix + "wte.weight"] = p.detach().t().contiguous()
        elif name == "wpe":
            out[prefix + "wpe.weight"] = p.detach().clone()
        else:
            out[prefix + name] = p.detach().clone()
    out["lm_head.weight"] = out[prefix + "wte.weight"]
    ctx = model.config.n_ctx
    for i in range(model.config.n_layer):  # the causal-mask buffer old checkpoints carry
        out[f"{prefix}h.{i}.attn.bias"] = torch.tril(torch.ones(1, 1, ctx, ctx))
    return out


def config_json(config):
    """``config`` as a Hugging Face GPT-2 config.json holds it."""
    return {"model_type": "gpt2", "n_layer": config.n_layer, "n_head": config.n_head, "n_embd": config.n_embd,
            "n_positions": config.n_ctx, "vocab_size": config.vocab_size, "layer_norm_epsilon": config.eps}


def write_config(directory, config):
    (directory / "config.json").write_text(json.dumps(config_json(config)))
