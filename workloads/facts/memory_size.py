"""A memory size as a user writes it (``--memory 32GB``, ``80GiB``, ``24576MiB``), in bytes (torch-free).

GB and GiB are both read as 2**30: a card's "32 GB" of DRAM is a power of two (see `workloads.facts.card`), and a
plan read 7 % short of the card would refuse what fits. A size with no unit, of 0, or past a petabyte is refused:
the one line says what to write.
"""

from __future__ import annotations

import math
import re

_UNITS = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmgt])(?:i?b)?\s*", re.IGNORECASE)
MOST = 2**50
EXAMPLE = "a size with its unit, as 32GB, 80GiB or 24576MiB"


def memory_size(text: str) -> int:
    """Bytes of ``text``; ValueError (one line) for what is not a size of memory."""
    found = _SIZE.fullmatch(text)
    if found is None:
        try:
            bare = float(text)
        except ValueError:
            raise ValueError(f"{text[:40]!r} is not {EXAMPLE}") from None
        raise ValueError(f"{text[:40]!r} is no memory: give {EXAMPLE}" if not bare > 0 else
                         f"{text[:40]!r} has no unit: give {EXAMPLE}")
    value = float(found.group(1)) * _UNITS[found.group(2).lower()]
    if not math.isfinite(value) or value < 1:
        raise ValueError(f"{text[:40]!r} is no memory: give {EXAMPLE}")
    if value > MOST:
        raise ValueError(f"{text[:40]!r} is more than any card holds (at most 1 PiB)")
    return int(value)
