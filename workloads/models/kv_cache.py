"""The preallocated KV cache that GPT-2 (workloads/models/gpt2/model.py) and the Llama family
(workloads/models/llama/model.py) decode through: one layout, ``(layers, 2, batch, key heads, max_len, head size)``.

Allocated once for the whole run, so a decode step writes its keys in place and never allocates; the eager path
reads the filled positions as a slice, the fixed-shape path (CUDA graphs, compile) reads it whole under a mask
built from ``positions``. A module holding buffers, so that ``torch.compile`` with CUDA graphs treats the cache
as a static input it may update in place. Each model's subclass says how many key heads it caches (GPT-2 one per
attention head; the Llama family ``num_key_value_heads``, grouped-query attention) and adds what else its steps
read from the cache (the Llama family's rotary table).
"""

from __future__ import annotations

import torch
from torch import nn


class KVCache(nn.Module):
    """Keys and values of every layer for ``batch`` sequences of up to ``max_len`` positions."""

    def __init__(self, layers: int, heads: int, head_dim: int, batch: int, max_len: int, dtype: torch.dtype,
                 device: torch.device):
        super().__init__()
        shape = (layers, 2, batch, heads, max_len, head_dim)
        self.register_buffer("data", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        # for the static path's mask: position j is visible from position p when j <= p
        self.register_buffer("positions", torch.arange(max_len, device=device), persistent=False)
        self.max_len = max_len

    def layer(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Layer ``i``'s keys and values, each (batch, heads, max_len, head size): views, written in place."""
        return self.data[i, 0], self.data[i, 1]

    def check_fits(self, pos: int, t: int) -> None:
        """ValueError unless positions pos..pos+t-1 are inside the cache."""
        if pos + t > self.max_len:
            raise ValueError(f"positions {pos}..{pos + t - 1} do not fit a cache of {self.max_len}")

    @property
    def nbytes(self) -> int:
        return self.data.numel() * self.data.element_size()
