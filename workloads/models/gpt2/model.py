"""The GPT-2 architecture in plain PyTorch, with a KV cache preallocated for the whole run.

Two ways through the model share one set of weights and one cache:

- :meth:`GPT2.forward` takes the position as a Python int and attends over the
  cache up to it (a slice): the eager path, and the prefill of every path.
- :meth:`GPT2.forward_static` takes the position as a tensor and attends over
  the whole cache with a mask, so every decode step has the same shapes and the
  same memory addresses: what CUDA graphs and ``torch.compile`` need.

Weights are kept as the Hugging Face checkpoint stores them (``in x out``,
GPT-2's "Conv1D") and multiplied through :func:`workloads.models.matvec.matvec`
(why that layout, and how ``split`` spreads a few-row product over the cores, is
said there). The token embedding is likewise stored once, transposed
(``width x vocabulary``): the logits read it whole every token, the
embedding lookup only reads one column per token.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from workloads.models import kv_cache, one_query
from workloads.models.gpt2.config import GPT2Config
from workloads.models.matvec import matvec


class Dense(nn.Module):
    """y = x @ W + b with W stored ``in x out`` (:mod:`workloads.models.matvec` says why)."""

    split = 1  # see matvec; set for the whole model with GPT2.split_products

    def __init__(self, n_in: int, n_out: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.empty(n_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return matvec(x, self.weight, self.bias, self.split)


class KVCache(kv_cache.KVCache):
    """GPT-2's cache: a key and a value head for each attention head."""

    def __init__(self, config: GPT2Config, batch: int, max_len: int, dtype: torch.dtype, device: torch.device):
        super().__init__(config.n_layer, config.n_head, config.head_dim, batch, max_len, dtype, device)


class Attention(nn.Module):
    def __init__(self, config: GPT2Config):
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = Dense(config.n_embd, 3 * config.n_embd)
        self.c_proj = Dense(config.n_embd, config.n_embd)

    def _qkv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        heads = lambda y: y.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)  # noqa: E731
        return heads(q), heads(k), heads(v)

    def _out(self, y: torch.Tensor) -> torch.Tensor:
        b, _, t, _ = y.shape
        return self.c_proj(y.transpose(1, 2).reshape(b, t, -1))

    def forward(self, x: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: int) -> torch.Tensor:
        q, k, v = self._qkv(x)
        t = x.shape[1]
        k_cache[:, :, pos:pos + t] = k
        v_cache[:, :, pos:pos + t] = v
        keys, values = k_cache[:, :, :pos + t], v_cache[:, :, :pos + t]
        if t == 1:
            y = one_query.attend(q, keys, values)
        elif pos == 0:
            y = F.scaled_dot_product_attention(q, keys, values, is_causal=True)
        else:
            # is_causal aligns the mask top-left, which is wrong once the cache holds earlier positions
            rows = torch.arange(pos, pos + t, device=x.device)[:, None]
            mask = torch.arange(pos + t, device=x.device)[None, :] <= rows
            y = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)
        return self._out(y)

    def forward_static(self, x: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                       input_pos: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        q, k, v = self._qkv(x)
        k_cache.index_copy_(2, input_pos, k)
        v_cache.index_copy_(2, input_pos, v)
        mask = positions[None, :] <= input_pos[:, None]
        return self._out(one_query.attend(q, k_cache, v_cache, mask))


class MLP(nn.Module):
    def __init__(self, config: GPT2Config):
        super().__init__()
        self.c_fc = Dense(config.n_embd, 4 * config.n_embd)
        self.c_proj = Dense(4 * config.n_embd, config.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, config: GPT2Config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.eps)
        self.attn = Attention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.eps)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: int) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x), k_cache, v_cache, pos)
        return x + self.mlp(self.ln_2(x))

    def forward_static(self, x: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                       input_pos: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        x = x + self.attn.forward_static(self.ln_1(x), k_cache, v_cache, input_pos, positions)
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    """GPT-2 with its logits head tied to the token embedding."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.config = config
        # the token embedding, transposed: width x vocabulary (see the module docstring)
        self.wte_t = nn.Parameter(torch.empty(config.n_embd, config.vocab_size))
        self.wpe = nn.Parameter(torch.empty(config.n_ctx, config.n_embd))
        self.h = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.n_embd, eps=config.eps)

    def _embed(self, idx: torch.Tensor) -> torch.Tensor:
        return F.embedding(idx, self.wte_t.t())

    def _logits(self, x: torch.Tensor, last_only: bool) -> torch.Tensor:
        x = self.ln_f(x[:, -1:] if last_only else x)
        return matvec(x, self.wte_t, None, self.split)

    split = 1

    def split_products(self, split: int) -> None:
        """Cut every few-row matrix product into ``split`` slices run on separate cores (see matvec)."""
        self.split = split
        for module in self.modules():
            if isinstance(module, Dense):
                module.split = split

    def forward(self, idx: torch.Tensor, cache: KVCache, pos: int = 0, last_only: bool = False) -> torch.Tensor:
        """Logits (batch, positions, vocabulary) for ``idx`` placed at ``pos``; fills the cache."""
        t = idx.shape[1]
        cache.check_fits(pos, t)
        x = self._embed(idx) + self.wpe[pos:pos + t]
        for i, block in enumerate(self.h):
            x = block(x, *cache.layer(i), pos)
        return self._logits(x, last_only)

    def forward_static(self, idx: torch.Tensor, cache: KVCache, input_pos: torch.Tensor) -> torch.Tensor:
        """Like :meth:`forward` with the positions as a tensor: fixed shapes for graphs and compile."""
        x = self._embed(idx) + self.wpe[input_pos]
        for i, block in enumerate(self.h):
            x = block.forward_static(x, *cache.layer(i), input_pos, cache.positions)
        return self._logits(x, last_only=False)

    @torch.no_grad()
    def init_random(self, seed: int = 0) -> None:
        """GPT-2's initialisation: N(0, 0.02), residual projections scaled by depth."""
        device = self.wte_t.device
        gen = torch.Generator(device=device).manual_seed(seed)
        residual_std = 0.02 / math.sqrt(2 * self.config.n_layer)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                p.zero_()
            elif ".ln_" in name or name.startswith("ln_f"):
                p.fill_(1.0)
            else:
                std = residual_std if name.endswith("c_proj.weight") else 0.02
                p.normal_(0.0, std, generator=gen)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def weight_bytes_per_step(model: GPT2) -> int:
    """Bytes of weights one decode step reads: all of them but the position table (one row)."""
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    wpe = model.wpe
    return total - wpe.numel() * wpe.element_size() + wpe.shape[1] * wpe.element_size()


def kv_bytes_per_step(config: GPT2Config, batch: int, context: int, element_size: int) -> int:
    """Bytes of keys and values one decode step reads when attending over ``context`` positions."""
    return 2 * config.n_layer * batch * context * config.n_embd * element_size
