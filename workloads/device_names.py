"""Device names matched on whole words, torch-free: the rated table (microbench) and the ResNet-50 baselines."""

from __future__ import annotations

import re


def has_word(name: str, words: str) -> bool:
    """Whether ``words`` appears in ``name`` as whole words, case aside ("L4" is not in "L40S")."""
    return re.search(rf"\b{re.escape(words)}\b", name, re.IGNORECASE) is not None
