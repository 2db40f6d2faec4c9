"""``--prompt TEXT``: tokenized with the ``--weights`` directory's ``tokenizer.json``, checked against the weights.

Torch-free, so a refusal is one line and exit 2 before a run directory exists. The ``tokenizers`` package
reads the file (it comes with transformers, or ``pip install -e '.[text]'``); it is never a base dependency.
The file is read and the text encoded by :mod:`workloads.models.tokenizer`, as generate's ``--prompt``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workloads.child.harness import WorkloadError
from workloads.models import tokenizer as hf_tokenizer

# Checkpoints pad their embedding past the tokenizer's last id (Qwen2.5-0.5B: 151,665 tokens, 151,936 rows;
# Qwen3: 151,669 of 151,936; Llama 3 and Mistral: none), by well under 1 %. A tokenizer that leaves more rows
# unused than this is another model's (Llama 2's 32,000 against Llama 3's 128,256 rows).
UNUSED_ROWS = 1024
UNUSED_SHARE = 0.01


def tokenize(weights: Path | None, text: str, vocab_size: int) -> tuple[Any, tuple[int, ...]]:
    """The tokenizer and the prompt's ids; WorkloadError naming what is missing or does not match."""
    if weights is None:
        raise WorkloadError("--prompt needs --weights DIR: random weights have no tokenizer",
                            hint="pass a local Hugging Face checkpoint directory holding tokenizer.json")
    path = weights / hf_tokenizer.TOKENIZER_FILE
    if not path.is_file():
        raise WorkloadError(f"--prompt needs a tokenizer and {path} does not exist",
                            hint="copy the model's tokenizer.json into the weights directory")
    tokenizer = hf_tokenizer.load(path, missing_hint="pip install tokenizers (or pip install -e '.[text]')")
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    unused = vocab_size - size
    if unused < 0 or unused > max(UNUSED_ROWS, UNUSED_SHARE * vocab_size):
        raise WorkloadError(f"{path} has {size:,} tokens, the weights' embedding {vocab_size:,} rows: "
                            "not this model's tokenizer", hint="use the tokenizer.json that came with these weights")
    return tokenizer, tuple(hf_tokenizer.encode(tokenizer, text, vocab_size))
