"""Token batches: synthetic by default, or a text / JSONL file cut into sequences.

Every batch is a pure function of the step number (and the seed), so ``--check-against-cpu`` replays the
same steps, and a rank takes its rows of the global batch: ranks and a single process see the same data.

Synthetic data is a fixed pool of random sequences, four global batches of them, cycled: seen again every
four steps, they can be learnt (fresh random tokens every step could not).

A file is tokenized with ``--weights DIR``'s ``tokenizer.json`` when the directory has one (the
``tokenizers`` package reads it); otherwise each UTF-8 byte is a token (ids 0-255), said in the run log.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from workloads.child.harness import WorkloadError

POOL_BATCHES = 4
HINT = "give a text file or a JSONL file with a 'text' field per line"


class Batches:
    """``batch(step)``: (global batch) x (seq_len + 1) tokens of step ``step`` (1-based), on the CPU."""

    def __init__(self, windows: torch.Tensor, batch: int, description: str):
        self.windows, self.batch, self.description = windows, batch, description

    def batch_of(self, step: int) -> torch.Tensor:
        rows = (torch.arange(self.batch) + (step - 1) * self.batch) % self.windows.shape[0]
        return self.windows[rows]


def synthetic(vocab: int, batch: int, seq_len: int, seed: int) -> Batches:
    gen = torch.Generator().manual_seed(seed)
    pool = torch.randint(0, vocab, (POOL_BATCHES * batch, seq_len + 1), generator=gen)
    return Batches(pool, batch, f"synthetic: {pool.shape[0]} random sequences of {seq_len} tokens, cycled")


def from_file(path: Path, vocab: int, batch: int, seq_len: int, tokenizer_dir: Path | None) -> Batches:
    text = _read_text(path)
    ids, how = _tokenize(text, tokenizer_dir)
    if ids and max(ids) >= vocab:
        raise WorkloadError(f"--data {path}: token id {max(ids)} is beyond the model's vocabulary of {vocab}",
                            hint="use the tokenizer of the --weights directory")
    n = len(ids) // (seq_len + 1)
    if n == 0:
        raise WorkloadError(f"--data {path} gives {len(ids)} tokens ({how}), fewer than one sequence of "
                            f"{seq_len} + 1", hint="give more text, or a lower --seq-len")
    windows = torch.tensor(ids[:n * (seq_len + 1)], dtype=torch.long).view(n, seq_len + 1)
    return Batches(windows, batch, f"{path}: {len(ids):,} tokens ({how}), {n} sequences of {seq_len}, cycled")


def _read_text(path: Path) -> str:
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkloadError(f"--data {path}: cannot read it as UTF-8 text ({type(exc).__name__})", hint=HINT) from None
    lines = [line for line in raw.splitlines() if line.strip()]
    if not lines:
        raise WorkloadError(f"--data {path} is empty", hint=HINT)
    if path.suffix.lower() not in (".jsonl", ".ndjson") and not lines[0].lstrip().startswith("{"):
        return raw
    texts = []
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except ValueError:
            raise WorkloadError(f"--data {path}: line {number} is not JSON", hint=HINT) from None
        if isinstance(record, dict) and isinstance(record.get("text"), str):
            texts.append(record["text"])
        elif isinstance(record, dict):
            texts.extend(v for v in record.values() if isinstance(v, str))  # prompt/response and the like
    if not any(t.strip() for t in texts):
        raise WorkloadError(f"--data {path}: no line holds text", hint=HINT)
    return "\n".join(texts)


def _tokenize(text: str, tokenizer_dir: Path | None) -> tuple[list[int], str]:
    path = tokenizer_dir / "tokenizer.json" if tokenizer_dir is not None else None
    if path is not None and path.is_file():
        try:
            from tokenizers import Tokenizer

            return Tokenizer.from_file(str(path)).encode(text).ids, f"tokenized with {path}"
        except ImportError:
            pass
    return list(text.encode("utf-8")), "byte-level tokens: no tokenizer given (ids 0-255)"
