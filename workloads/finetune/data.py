"""Token batches: synthetic by default, or a text / JSONL file cut into sequences.

Every batch is a pure function of the step number (and the seed), so ``--check-against-cpu`` replays the
same steps, and a rank takes its rows of the global batch: ranks and a single process see the same data.

Synthetic data is a fixed pool of random sequences, four global batches of them, cycled: seen again every
four steps, they can be learnt (fresh random tokens every step could not).

A file is tokenized with ``--weights DIR``'s ``tokenizer.json`` when the directory has one (the
``tokenizers`` package reads it); otherwise each UTF-8 byte is a token (ids 0-255), said in the run log.
"""

from __future__ import annotations

from pathlib import Path

import torch

from workloads.child.harness import WorkloadError
from workloads.finetune import corpus

POOL_BATCHES = 4


class Batches:
    """``batch(step)``: (global batch) x (seq_len + 1) tokens of step ``step`` (1-based), on the CPU."""

    def __init__(self, windows: torch.Tensor, batch: int, description: str):
        self.windows, self.batch, self.description = windows, batch, description

    def batch_of(self, step: int) -> torch.Tensor:
        rows = (torch.arange(self.batch) + (step - 1) * self.batch) % self.windows.shape[0]
        return self.windows[rows].long()   # a file's windows are held in one or four bytes a token


def synthetic(vocab: int, batch: int, seq_len: int, seed: int) -> Batches:
    gen = torch.Generator().manual_seed(seed)
    pool = torch.randint(0, vocab, (POOL_BATCHES * batch, seq_len + 1), generator=gen)
    return Batches(pool, batch, f"synthetic: {pool.shape[0]} random sequences of {seq_len} tokens, cycled")


def from_file(path: Path, vocab: int, batch: int, seq_len: int, tokenizer_dir: Path | None,
              tokens_needed: int | None = None) -> Batches:
    """The file's tokens cut into sequences of ``seq_len`` + 1, read as a stream (:mod:`~workloads.finetune.corpus`)
    up to ``tokens_needed`` (what the run's steps take; None: the whole file) and viewed, not copied: one byte a
    byte-level token, four a tokenizer's, widened to int64 a batch at a time by :meth:`Batches.batch_of`."""
    tokens = corpus.read(path, tokenizer_dir, tokens_needed)
    count = len(tokens.ids)
    n = count // (seq_len + 1)
    if n == 0:
        raise WorkloadError(f"--data {path} gives {count} tokens ({tokens.how}), fewer than one sequence of "
                            f"{seq_len} + 1", hint="give more text, or a lower --seq-len")
    dtype = torch.uint8 if isinstance(tokens.ids, bytearray) else torch.int32
    windows = torch.frombuffer(tokens.ids, dtype=dtype, count=n * (seq_len + 1)).view(n, seq_len + 1)
    largest = int(windows.max())
    if largest >= vocab:
        raise WorkloadError(f"--data {path}: token id {largest} is beyond the model's vocabulary of {vocab}",
                            hint="use the tokenizer of the --weights directory")
    read = f"{count:,} tokens" if tokens.whole else f"the first {count:,} tokens, what the run's steps take"
    return Batches(windows, batch, f"{path}: {read} ({tokens.how}), {n} sequences of {seq_len}, cycled")
