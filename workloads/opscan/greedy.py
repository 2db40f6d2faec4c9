"""The decode sources' generation: a prompt's prefill through the KV cache, then eager greedy decode steps.

One loop for ``gpt2-decode`` (workloads/opscan/sources.py) and ``llama-decode`` (llama_decode.py): both
models take ``(ids, cache, position, last_only)`` as workloads/models/decoding.generate calls them.
"""

from __future__ import annotations

from typing import Any

import torch


def decode(model: Any, cache: Any, prompt: torch.Tensor, steps: int) -> torch.Tensor:
    """Prefill ``prompt`` (batch, length), then ``steps`` one-token steps each fed the last argmax; the last token."""
    token = model(prompt, cache, 0, last_only=True)[:, -1].argmax(-1, keepdim=True)
    for i in range(steps):
        token = model(token, cache, prompt.shape[1] + i)[:, -1].argmax(-1, keepdim=True)
    return token
