"""How many tokens a chunk of the fused LM loss holds (torch-free: the fit estimate counts it, the loss uses it).

The fused head + cross-entropy (:mod:`workloads.models.chunked_loss`) forms the logits of one chunk of tokens at a
time; its peak is that chunk's logits in the product's dtype plus their fp32 log-probabilities.
"""

from __future__ import annotations

# one chunk's fp32 logits at most this many elements (128 MiB): big enough that each chunk's product is a full GEMM
# on a card, small enough that a 152k vocabulary keeps a few hundred tokens a chunk
CHUNK_ELEMENTS = 2**25


def chunk_rows(vocab: int) -> int:
    """Tokens a chunk, so that its logits stay under :data:`CHUNK_ELEMENTS`."""
    return max(1, CHUNK_ELEMENTS // max(1, vocab))


def chunk_bytes(vocab: int, element_size: int) -> int:
    """The loss's transient peak: one chunk's logits in the product's dtype and their fp32 log-probabilities."""
    return chunk_rows(vocab) * vocab * (element_size + 4)
