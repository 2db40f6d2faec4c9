"""What a run records of its secrets (their shape and a salted digest, never the value) and how it is found again.

The record itself is written by :func:`tui.redact.run_record.record_for_run` and read by
:meth:`tui.redact.redactor.Redactor.learn_recorded` and :meth:`~tui.redact.redactor.Redactor.discover`.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any, Iterable, Mapping

# config.json's key for what the run recorded for later exports (record_for_run); never in the bundle
RECORD_KEY = "redact"


def without_record(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run's config without what it recorded for the redactor (that stays on the user's disk)."""
    return {k: v for k, v in config.items() if k != RECORD_KEY}


_WORD_RUN = re.compile(r"[^\W_]+")  # letters and digits; str.isalnum() says the same of one character


def secret_shape(value: str) -> str:
    """The value with each run of letters and digits replaced by its length: ``ghp_Ab12`` -> ``3_4``."""
    return _WORD_RUN.sub(lambda m: str(len(m.group())), value)


def word_span(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole words: a secret starting or ending inside a word takes the word."""
    if start < end and text[start].isalnum():
        while start > 0 and text[start - 1].isalnum():
            start -= 1
    if start < end and text[end - 1].isalnum():
        while end < len(text) and text[end].isalnum():
            end += 1
    return start, end


def salted_digest(salt: str, value: str) -> str:
    return hashlib.sha256(f"{salt}\0{value}".encode("utf-8", "surrogatepass")).hexdigest()


_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")


def recorded_entries(recorded: Any) -> list[tuple[str, str, str]]:
    """(salt, digest, shape) of each well-formed entry of a run's record; anything else is ignored."""
    if not isinstance(recorded, Mapping):
        return []
    salt, digests, shapes = recorded.get("salt"), recorded.get("sha256"), recorded.get("shapes")
    if not isinstance(salt, str) or not isinstance(digests, list) or not isinstance(shapes, list):
        return []
    return [(salt, digest, shape) for digest, shape in zip(digests, shapes)
            if isinstance(digest, str) and _HEX_DIGEST.fullmatch(digest) and isinstance(shape, str)
            and shape_pattern(shape) is not None]


_SHAPE_PARTS = re.compile(r"[0-9]+|[^0-9]+")


@functools.lru_cache(maxsize=256)
def _shape_parts(shape: str) -> tuple[int | str, ...] | None:
    """A shape as (word length | separator text) parts; None when it is not one :func:`secret_shape` gives."""
    if not shape or len(shape) > 4096:
        return None
    parts: list[int | str] = []
    for part in _SHAPE_PARTS.findall(shape):
        if part[0] in "0123456789":
            n = int(part)
            if not 0 < n <= 1 << 16:
                return None
            parts.append(n)
        elif _WORD_RUN.search(part):  # a separator holds no letter or digit
            return None
        else:
            parts.append(part)
    return tuple(parts)


# texts up to this long are searched for recorded secrets at every position, longer ones at word boundaries
LOOSE_UP_TO = 4096


@functools.lru_cache(maxsize=256)
def shape_pattern(shape: str, loose: bool = False) -> re.Pattern[str] | None:
    """Every stretch of text of this shape (group 1), overlapping ones too: made of whole words unless loose."""
    parts = _shape_parts(shape)
    if parts is None:
        return None
    body = "".join(rf"[^\W_]{{{p}}}" if isinstance(p, int) else re.escape(p) for p in parts)
    lead = r"(?<![^\W_])" if isinstance(parts[0], int) and not loose else ""
    trail = r"(?![^\W_])" if isinstance(parts[-1], int) and not loose else ""
    return re.compile(f"{lead}(?=({body}){trail})")


# ASCII letters and digits -> "a", everything else kept: a shape's stretches of text are then one string
MASK = bytes(ord("a") if chr(b).isalnum() else b for b in range(128)) + bytes(range(128, 256))


def masked_candidates(shape: str, text: str, masked: bytes) -> Iterable[str]:
    """The stretches of an ASCII text of this shape made of whole words (``masked``: the text through MASK)."""
    parts = _shape_parts(shape)
    if parts is None:
        return
    try:
        needle = b"".join(b"a" * p if isinstance(p, int) else p.encode("ascii") for p in parts)
    except UnicodeEncodeError:  # a separator no ASCII text holds
        return
    word_first, word_last = isinstance(parts[0], int), isinstance(parts[-1], int)
    size, a = len(needle), ord("a")
    at = masked.find(needle)
    while at != -1:
        end = at + size
        if (not word_first or at == 0 or masked[at - 1] != a) and (not word_last or end == len(masked)
                                                                    or masked[end] != a):
            yield text[at:end]
        at = masked.find(needle, at + 1)


def may_hold(shape: str, text: str) -> bool:
    """Each separator of the shape is in the text (at C speed, before the pattern walks a long text)."""
    parts = _shape_parts(shape)
    return parts is not None and all(p in text for p in parts if isinstance(p, str))

