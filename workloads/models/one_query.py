"""Attention of one new position over the KV cache: a decode step's attention, for GPT-2 and the Llama family.

On the CPU a step's attention is tiny next to its weight products (Qwen2.5-0.5B at 36 positions: 7 query
rows x 36 keys x 64 per key head, against 80 MB of weights a layer), yet torch runs its ``bmm`` and
``softmax`` as OpenMP parallel regions over the cores. A parallel region ends only when every thread of
the team has run: on a loaded machine (other processes on the cores) the second thread waits for the
scheduler, so each of these microsecond ops costs milliseconds. Measured on this 2-core VM at load 8-11
(``bench/llama_decode_profile.py --attention N``): q @ k^T, softmax, @ v at 36 positions took 17.8 us
median but 2.8 ms mean on 2 threads, 16.6 us median and 0.12 ms mean on one; at 1,024 positions 181 us
median and 15.9 ms mean on 2 threads, 110 us and 0.38 ms on one. A profile of one 0.5B decode step
(``bench/llama_decode_profile.py``) spent 60 % of it in these ops. So an attention that reads little
cache runs on one thread, the thread count set back after it (0.4 us the pair); the weight products keep
every thread. A larger one (long contexts, big batches), whose reads pay for a second core, keeps the team.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Iterator

import torch
import torch.nn.functional as F

# elements of the keys read (batch x key heads x positions x head size) up to which the attention runs on one
# thread: 1 MiB of fp32 keys, Qwen2.5-0.5B at batch 1 up to 2,048 positions (one thread still won at 1,024)
SERIAL_MAX_KEYS = 2**18


@contextmanager
def one_thread() -> Iterator[None]:
    """torch's intra-op threads set to 1 inside, and back to what they were after (even on an exception)."""
    threads = torch.get_num_threads()
    if threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def attend(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
           mask: torch.Tensor | None = None) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v for queries (b, heads, rows, d) over the cache (b, heads, positions, d).

    ``rows`` may be several query heads sharing one key head (grouped-query attention stacked as rows).
    Without a mask on the CPU: three plain ops (they beat the CPU's flash-attention kernel for one query,
    about 190 us a layer for GPT-2), on one thread when the keys are few (see the module docstring).
    Elsewhere, or under a mask (the fixed-shape path of CUDA graphs and compile), SDPA.
    """
    if mask is not None or q.device.type != "cpu":
        return F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)
    if keys.numel() > SERIAL_MAX_KEYS:
        return _plain(q, keys, values)
    with one_thread():
        return _plain(q, keys, values)


def _plain(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    scores = (q @ keys.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    return torch.softmax(scores, dim=-1) @ values
