"""A local Hugging Face checkpoint of a Llama-family model loaded into :class:`workloads.models.llama.model.Llama`.

The files are found and read as for GPT-2 (:mod:`workloads.models.state_dict`: ``model.safetensors``,
a sharded index of them, or ``pytorch_model.bin``; the ``safetensors`` package when installed). The
names are transformers' (``model.layers.N.self_attn.q_proj.weight``...), the matrices ``out x in``:
each is transposed into the model's ``in x out`` layout, and q/k/v and gate/up are concatenated into
the model's fused products. Every shape is checked; the first missing, misshapen or unexpected tensor
ends the load in one line naming it.
"""

from __future__ import annotations

from pathlib import Path

import torch

from workloads.child.harness import WorkloadError
from workloads.models.state_dict import read_state_dict
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import LlamaConfig

HINT = "the checkpoint does not match its config.json: a damaged or edited directory"
# buffers some checkpoints carry: recomputed here
_IGNORED_SUFFIXES = ("rotary_emb.inv_freq",)


def expected_shapes(config: LlamaConfig) -> dict[str, tuple[int, ...]]:
    """transformers' tensor name -> its shape, in model order."""
    d, f, v, hd = config.hidden_size, config.intermediate_size, config.vocab_size, config.head_dim
    q, kv = config.num_attention_heads * hd, config.num_key_value_heads * hd
    out: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (v, d)}
    for i in range(config.num_hidden_layers):
        p = f"model.layers.{i}."
        out.update({p + "input_layernorm.weight": (d,), p + "post_attention_layernorm.weight": (d,),
                    p + "self_attn.q_proj.weight": (q, d), p + "self_attn.k_proj.weight": (kv, d),
                    p + "self_attn.v_proj.weight": (kv, d), p + "self_attn.o_proj.weight": (d, q),
                    p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d),
                    p + "mlp.down_proj.weight": (d, f)})
        if config.attention_bias:
            out.update({p + "self_attn.q_proj.bias": (q,), p + "self_attn.k_proj.bias": (kv,),
                        p + "self_attn.v_proj.bias": (kv,)})
        if config.qk_norm:
            out.update({p + "self_attn.q_norm.weight": (hd,), p + "self_attn.k_norm.weight": (hd,)})
    out["model.norm.weight"] = (d,)
    if not config.tie_word_embeddings:
        out["lm_head.weight"] = (v, d)
    return out


def check(config: LlamaConfig, state: dict[str, torch.Tensor], source: str) -> None:
    """WorkloadError at the first tensor that is missing, misshapen, not floating point or unexpected."""
    expected = expected_shapes(config)
    for name, shape in expected.items():
        tensor = state.get(name)
        if tensor is None:
            raise WorkloadError(f"{source}: missing tensor {name!r} (shape {shape})", hint=HINT)
        if tuple(tensor.shape) != shape:
            raise WorkloadError(f"{source}: tensor {name!r} has shape {tuple(tensor.shape)}, expected {shape}",
                                hint=HINT)
        if not tensor.is_floating_point():
            raise WorkloadError(f"{source}: tensor {name!r} is {tensor.dtype}, not floating point", hint=HINT)
    for name in state:
        # a tied checkpoint may still carry lm_head.weight (the same tensor): checked by shape, not copied
        if name not in expected and not name.endswith(_IGNORED_SUFFIXES) and not (
                name == "lm_head.weight" and tuple(state[name].shape) == expected["model.embed_tokens.weight"]):
            raise WorkloadError(f"{source}: unexpected tensor {name!r}", hint=HINT)


@torch.no_grad()
def load_state_dict(model: Llama, state: dict[str, torch.Tensor], source: str = "the checkpoint") -> None:
    """Copy transformers' tensors into ``model`` (transposed and fused), after checking every one."""
    config = model.config
    check(config, state, source)
    t = lambda name: state[name].t()  # noqa: E731 - out x in -> in x out
    if config.tie_word_embeddings:
        model.lm_head_t.copy_(t("model.embed_tokens.weight"))
    else:
        model.embed_tokens.copy_(state["model.embed_tokens.weight"])
        model.lm_head_t.copy_(t("lm_head.weight"))
    model.norm.weight.copy_(state["model.norm.weight"])
    for i, block in enumerate(model.layers):
        p = f"model.layers.{i}."
        a = p + "self_attn."
        block.input_layernorm.weight.copy_(state[p + "input_layernorm.weight"])
        block.post_attention_layernorm.weight.copy_(state[p + "post_attention_layernorm.weight"])
        attn = block.self_attn
        attn.qkv.weight.copy_(torch.cat([t(a + f"{x}_proj.weight") for x in "qkv"], dim=1))
        if attn.qkv.bias is not None:
            attn.qkv.bias.copy_(torch.cat([state[a + f"{x}_proj.bias"] for x in "qkv"]))
        attn.o_proj.weight.copy_(t(a + "o_proj.weight"))
        if attn.q_norm is not None:
            attn.q_norm.weight.copy_(state[a + "q_norm.weight"])
            attn.k_norm.weight.copy_(state[a + "k_norm.weight"])
        m = p + "mlp."
        block.mlp.gate_up.weight.copy_(torch.cat([t(m + "gate_proj.weight"), t(m + "up_proj.weight")], dim=1))
        block.mlp.down_proj.weight.copy_(t(m + "down_proj.weight"))


def load_dir(model: Llama, directory: Path) -> None:
    load_state_dict(model, read_state_dict(directory), source=str(directory))
