"""How many tokens a chunk of the fused LM loss holds (torch-free: the fit estimate counts it, the loss uses it).

The fused head + cross-entropy (:mod:`workloads.models.chunked_loss`) forms the logits of one chunk of tokens at a
time; its peak (:func:`peak_bytes`) is that chunk's tensors as its loop forms them, and the previous chunk's it still
names while the next one's are formed.
"""

from __future__ import annotations

# one chunk's fp32 logits at most this many elements (128 MiB): big enough that each chunk's product is a full GEMM
# on a card, small enough that a 152k vocabulary keeps a few hundred tokens a chunk
CHUNK_ELEMENTS = 2**25


def chunk_rows(vocab: int) -> int:
    """Tokens a chunk, so that its logits stay under :data:`CHUNK_ELEMENTS`."""
    return max(1, CHUNK_ELEMENTS // max(1, vocab))


def peak_bytes(tokens: int, vocab: int, element_size: int) -> int:
    """The loss's transient peak over ``tokens`` in the product's ``element_size``, a value of the vocabulary at a time:
    a chunk's logits (element_size), their fp32 copy when the product ran in 16 bits (4), their fp32 log-probabilities
    (4); and, when there is more than one chunk, the previous chunk's log-probabilities and 16-bit gradient, which the
    loop's names keep until the next chunk's replace them (4, and element_size in 16 bits). Measured on the CPU
    (bench/train_step_peak.py): tiny at 1,024 tokens in fp32 peaked 68 MiB above what the forward keeps; this
    count says 64 MiB."""
    rows = min(tokens, chunk_rows(vocab))
    narrow = element_size if element_size < 4 else 0
    one = element_size + (4 if narrow else 0) + 4
    carried = 4 + narrow if tokens > rows else 0
    return rows * vocab * (one + carried)
