"""A Hugging Face tokenizer for ``--prompt`` (generate's GPT-2, llm's Llama family), when one is on this machine.

It is a ``tokenizer.json`` (the Hugging Face fast-tokenizer file, usually in the
weights directory) read by the ``tokenizers`` package. Both are optional: the
default prompt is random token ids, which measures the same thing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workloads.child.harness import WorkloadError
from workloads.errors import first_line

TOKENIZER_FILE = "tokenizer.json"


def find(tokenizer: Path | None, weights: Path | None) -> Path:
    """The tokenizer.json to use: ``--tokenizer`` (a file or a directory), else the weights directory's."""
    candidates = []
    if tokenizer is not None:
        candidates.append(tokenizer / TOKENIZER_FILE if tokenizer.is_dir() else tokenizer)
    elif weights is not None:
        candidates.append(weights / TOKENIZER_FILE)
    for path in candidates:
        if path.is_file():
            return path
    where = str(candidates[0]) if candidates else "no --tokenizer or --weights given"
    raise WorkloadError(f"--prompt needs a GPT-2 tokenizer and none was found ({where})",
                        hint="pass --tokenizer PATH/tokenizer.json (or a --weights dir holding one), "
                             "or use --prompt-len N for random token ids")


# what generate's --prompt user can do without the package; llm passes its own (it has no --prompt-len)
MISSING_HINT = "pip install tokenizers, or use --prompt-len N for random token ids"


def load(path: Path, missing_hint: str = MISSING_HINT) -> Any:
    """The tokenizer read from ``path``; WorkloadError when the package is missing (``missing_hint`` says what
    to do) or the file is unreadable."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise WorkloadError("--prompt needs the `tokenizers` package, which is not installed",
                            hint=missing_hint) from None
    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same user error
        raise WorkloadError(f"cannot read tokenizer {path}: {first_line(exc)}",
                            hint="expected a Hugging Face tokenizer.json") from None


def encode(tokenizer: Any, text: str, vocab_size: int) -> list[int]:
    ids = list(tokenizer.encode(text).ids)
    if not ids:
        raise WorkloadError("--prompt encodes to no tokens", hint="give a non-empty prompt")
    too_big = [i for i in ids if i >= vocab_size]
    if too_big:
        raise WorkloadError(f"the tokenizer gives id {too_big[0]}, outside the model's vocabulary of {vocab_size}",
                            hint="use the tokenizer that belongs to these weights")
    return ids
