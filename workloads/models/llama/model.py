"""A Llama-family decoder (Llama 3, Qwen 2.5/3, Mistral) in plain PyTorch, with a preallocated KV cache.

Written in the style of :mod:`workloads.models.gpt2.model`, whose reasons hold here too:

- weights are kept ``in x out`` and multiplied through :func:`workloads.models.matvec.matvec` (a
  batch-1 decode step is a matrix-vector product bound by memory bandwidth; ``x @ W`` over a row-major
  ``in x out`` matrix streams faster on the CPU, and ``split`` spreads a few-row product over the cores);
- q, k and v are one product, and so are the MLP's gate and up: four products a layer instead of seven,
  so a small model's decode is not a string of tiny kernel launches. A Hugging Face checkpoint's
  separate matrices are concatenated on load (:mod:`workloads.models.llama.checkpoint`);
- two ways through the model share the weights and the cache: :meth:`Llama.forward` with the position
  as a Python int (eager decode and every prefill) and :meth:`Llama.forward_static` with the position
  as a tensor over the whole cache with a mask (fixed shapes and addresses for CUDA graphs and compile).

``forward(idx)`` without a cache is the training forward: causal attention over the sequence, logits
for every position, each block optionally under activation checkpointing.

The maths follow transformers' modeling_llama / modeling_qwen2 / modeling_qwen3 (rotate-half rotary
with the Llama 3 frequency scaling, RMSNorm, SwiGLU, grouped-query attention), so greedy output on the
same weights is the same tokens (tests/workloads/models/llama checks it against transformers' generate()).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from workloads.models import kv_cache, one_query
from workloads.models.chunked_loss import linear_cross_entropy
from workloads.models.matvec import matvec
from workloads.models.llama.presets import LlamaConfig


def inverse_frequencies(config: LlamaConfig) -> torch.Tensor:
    """Rotary inverse frequencies (head_dim / 2), with Llama 3's scaling when the config has it.

    As transformers' _compute_default_rope_parameters and _compute_llama3_parameters: wavelengths longer
    than the original context / low_freq_factor are divided by the factor, shorter than / high_freq_factor
    kept, and those between interpolated.
    """
    dim = config.head_dim
    inv = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    s = config.rope_scaling
    if s is None:
        return inv
    low_wavelen = s.original_max_position_embeddings / s.low_freq_factor
    high_wavelen = s.original_max_position_embeddings / s.high_freq_factor
    wavelen = 2 * math.pi / inv
    scaled = torch.where(wavelen > low_wavelen, inv / s.factor, inv)
    smooth = (s.original_max_position_embeddings / wavelen - s.low_freq_factor) / (
        s.high_freq_factor - s.low_freq_factor)
    smoothed = (1 - smooth) * scaled / s.factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled)


def rotary_table(config: LlamaConfig, length: int, device: torch.device, dtype: torch.dtype
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin (length x head_dim) for positions 0..length-1, computed in fp32 then cast, as transformers."""
    inv = inverse_frequencies(config).to(device)
    freqs = torch.outer(torch.arange(length, device=device, dtype=torch.float32), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x * cos + rotate_half(x) * sin over the last dimension (transformers' apply_rotary_pos_emb)."""
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


class Dense(nn.Module):
    """y = x @ W (+ b) with W stored ``in x out`` (see the module docstring)."""

    split = 1  # see workloads.models.matvec.matvec; set for the whole model with Llama.split_products

    def __init__(self, n_in: int, n_out: int, bias: bool = False):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.empty(n_out)) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return matvec(x, self.weight, self.bias, self.split)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, self.weight.shape, self.weight, self.eps)


class KVCache(kv_cache.KVCache):
    """The shared cache (workloads/models/kv_cache.py) of the key heads (grouped-query attention), and the
    rotary table for its positions: buffers, so compile with CUDA graphs reads them as static inputs."""

    def __init__(self, config: LlamaConfig, batch: int, max_len: int, dtype: torch.dtype, device: torch.device):
        super().__init__(config.num_hidden_layers, config.num_key_value_heads, config.head_dim, batch, max_len,
                         dtype, device)
        cos, sin = rotary_table(config, max_len, device, dtype)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)


class Attention(nn.Module):
    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.n_head, self.n_kv, self.head_dim = config.num_attention_heads, config.num_key_value_heads, config.head_dim
        q, kv = self.n_head * self.head_dim, self.n_kv * self.head_dim
        self.sizes = (q, kv, kv)
        self.qkv = Dense(config.hidden_size, q + 2 * kv, bias=config.attention_bias)
        self.o_proj = Dense(q, config.hidden_size)
        self.q_norm = RMSNorm(self.head_dim, config.rms_norm_eps) if config.qk_norm else None
        self.k_norm = RMSNorm(self.head_dim, config.rms_norm_eps) if config.qk_norm else None

    def _qkv(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(self.sizes, dim=-1)
        q = q.view(b, t, self.n_head, self.head_dim)
        k = k.view(b, t, self.n_kv, self.head_dim)
        if self.q_norm is not None:  # Qwen 3 normalises each head before rotary
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        v = v.view(b, t, self.n_kv, self.head_dim).transpose(1, 2)
        return rotate(q, cos, sin), rotate(k, cos, sin), v

    def _out(self, y: torch.Tensor) -> torch.Tensor:
        b, _, t, _ = y.shape
        return self.o_proj(y.transpose(1, 2).reshape(b, t, -1))

    def _one_query(self, q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                   mask: torch.Tensor | None = None) -> torch.Tensor:
        """One position's attention, the query heads sharing a key head stacked as its rows.

        (b, heads, 1, d) viewed as (b, kv heads, heads per kv head, d) attends over the kv heads' cache
        as it is: no repeated keys, and no mask needed on the eager path (every cached position is seen).
        """
        b = q.shape[0]
        grouped = q.reshape(b, self.n_kv, self.n_head // self.n_kv, self.head_dim)
        return one_query.attend(grouped, keys, values, mask).reshape(b, self.n_head, 1, self.head_dim)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                cache: tuple[torch.Tensor, torch.Tensor] | None = None, pos: int = 0) -> torch.Tensor:
        q, k, v = self._qkv(x, cos, sin)
        t = x.shape[1]
        if cache is None:  # training: the sequence attends to itself
            return self._out(F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))
        k_cache, v_cache = cache
        k_cache[:, :, pos:pos + t] = k
        v_cache[:, :, pos:pos + t] = v
        keys, values = k_cache[:, :, :pos + t], v_cache[:, :, :pos + t]
        if t == 1:
            return self._out(self._one_query(q, keys, values))
        if pos == 0:
            y = F.scaled_dot_product_attention(q, keys, values, is_causal=True, enable_gqa=True)
        else:
            # is_causal aligns the mask top-left, which is wrong once the cache holds earlier positions
            rows = torch.arange(pos, pos + t, device=x.device)[:, None]
            mask = torch.arange(pos + t, device=x.device)[None, :] <= rows
            y = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask, enable_gqa=True)
        return self._out(y)

    def forward_static(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                       cache: tuple[torch.Tensor, torch.Tensor], input_pos: torch.Tensor,
                       positions: torch.Tensor) -> torch.Tensor:
        """One decode position at ``input_pos`` (a 1-element tensor), attending over the whole cache masked."""
        q, k, v = self._qkv(x, cos, sin)
        k_cache, v_cache = cache
        k_cache.index_copy_(2, input_pos, k)
        v_cache.index_copy_(2, input_pos, v)
        mask = positions[None, :] <= input_pos[:, None]
        return self._out(self._one_query(q, k_cache, v_cache, mask))


class MLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x)), gate and up as one product."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.gate_up = Dense(config.hidden_size, 2 * config.intermediate_size)
        self.down_proj = Dense(config.intermediate_size, config.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down_proj(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, x, cos, sin, cache=None, pos: int = 0):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, cache, pos)
        return x + self.mlp(self.post_attention_layernorm(x))

    def forward_static(self, x, cos, sin, cache, input_pos, positions):
        x = x + self.self_attn.forward_static(self.input_layernorm(x), cos, sin, cache, input_pos, positions)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    """The decoder: token embedding, blocks, final norm, logits head (tied to the embedding or its own)."""

    split = 1
    checkpointing = False  # training: recompute each block's activations in the backward pass
    fuses_loss = True  # forward(idx, targets=...) returns the loss, the head fused with it (models/chunked_loss.py)

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.config = config
        d, v = config.hidden_size, config.vocab_size
        # the logits head, transposed (width x vocabulary): every token reads it whole (see gpt2/model.py)
        self.lm_head_t = nn.Parameter(torch.empty(d, v))
        # a tied model looks tokens up in the head's columns; an untied one has its own table
        self.embed_tokens = None if config.tie_word_embeddings else nn.Parameter(torch.empty(v, d))
        self.layers = nn.ModuleList(Block(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(d, config.rms_norm_eps)
        self._rope: tuple[int, torch.Tensor, torch.Tensor] | None = None

    def split_products(self, split: int) -> None:
        """Cut every few-row matrix product into ``split`` slices run on separate cores (see matvec)."""
        self.split = split
        for module in self.modules():
            if isinstance(module, Dense):
                module.split = split

    def new_cache(self, batch: int, max_len: int) -> KVCache:
        p = self.lm_head_t
        return KVCache(self.config, batch, max_len, p.dtype, p.device)

    def _embed(self, idx: torch.Tensor) -> torch.Tensor:
        table = self.lm_head_t.t() if self.embed_tokens is None else self.embed_tokens
        return F.embedding(idx, table)

    def _logits(self, x: torch.Tensor, last_only: bool) -> torch.Tensor:
        x = self.norm(x[:, -1:] if last_only else x)
        return matvec(x, self.lm_head_t, None, self.split)

    def _training_rope(self, t: int) -> tuple[torch.Tensor, torch.Tensor]:
        p = self.lm_head_t
        if self._rope is None or self._rope[0] < t or self._rope[1].dtype != p.dtype or self._rope[1].device != p.device:
            self._rope = (t, *rotary_table(self.config, t, p.device, p.dtype))
        return self._rope[1][:t], self._rope[2][:t]

    def forward(self, idx: torch.Tensor, cache: KVCache | None = None, pos: int = 0,
                last_only: bool = False, targets: torch.Tensor | None = None) -> torch.Tensor:
        """Logits (batch, positions, vocabulary) for ``idx`` placed at ``pos``, filling the cache when given.

        Without a cache: the training forward over ``idx`` alone (positions 0..t-1); with ``targets`` (the next
        token of each position) the mean cross-entropy instead of the logits, which are never held whole. The loss
        is taken inside forward so that a compiled or FSDP-sharded model runs the head under its own forward.
        """
        t = idx.shape[1]
        x = self._embed(idx)
        if cache is None:
            cos, sin = self._training_rope(t)
            for block in self.layers:
                if self.checkpointing and torch.is_grad_enabled():
                    x = checkpoint(block, x, cos, sin, use_reentrant=False)
                else:
                    x = block(x, cos, sin)
            if targets is not None:
                return linear_cross_entropy(self.norm(x).flatten(0, 1), self.lm_head_t, targets.flatten())
            return self._logits(x, last_only)
        cache.check_fits(pos, t)
        cos, sin = cache.cos[pos:pos + t], cache.sin[pos:pos + t]
        for i, block in enumerate(self.layers):
            x = block(x, cos, sin, cache.layer(i), pos)
        return self._logits(x, last_only)

    def forward_static(self, idx: torch.Tensor, cache: KVCache, input_pos: torch.Tensor) -> torch.Tensor:
        """One decode position as a tensor: fixed shapes for CUDA graphs and compile."""
        x = self._embed(idx)
        cos, sin = cache.cos[input_pos], cache.sin[input_pos]
        for i, block in enumerate(self.layers):
            x = block.forward_static(x, cos, sin, cache.layer(i), input_pos, cache.positions)
        return self._logits(x, last_only=False)

    @torch.no_grad()
    def init_random(self, seed: int = 0) -> None:
        """Every parameter drawn by :func:`init_parameter`, in order, from one generator seeded ``seed``."""
        gen = torch.Generator(device=self.lm_head_t.device).manual_seed(seed)
        for name, p in self.named_parameters():
            init_parameter(name, p, gen)


@torch.no_grad()
def init_parameter(name: str, p: torch.Tensor, gen: torch.Generator) -> None:
    """The random-weights rule: N(0, 0.02) weights (transformers' initializer_range), zero biases, unit norms.
    The finetune workload's sharded build draws each full parameter with it (workloads/finetune/meta_init.py)."""
    if name.endswith("bias"):
        p.zero_()
    elif "norm" in name:
        p.fill_(1.0)
    else:
        p.normal_(0.0, 0.02, generator=gen)


def weight_bytes_per_step(model: Llama) -> int:
    """Bytes of weights one decode step reads: all of them, but one row of an untied embedding table."""
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    table = model.embed_tokens
    if table is not None:
        total -= (table.shape[0] - 1) * table.shape[1] * table.element_size()
    return total
