"""What a cut left of a secret on a drawn screen: the start or end of a learned secret, a token shape cut short."""

from __future__ import annotations

import html
import re
from typing import Iterable

from tui.redact.rules import MIN_FRAGMENT, REDACTED

# SVG: a tag, or text between tags (a <text> element's characters); a line break ends a piece too
PIECE = re.compile(r"<[^>]*>|[^<\n]+")
_SPACES = re.compile(r"((?:\s|&#160;|&nbsp;)+)")
_ELLIPSIS = ("…", "&#8230;", "...")
# a token shape's start at the end of a piece: cut there, it may be too short for TOKEN_SHAPES
_CUT_SHAPE = re.compile(r"\b(?:hf_|gh[pousr]_|github_pat_|glpat-|sk-|AKIA|ASIA|xox[abprs]-|AIza|npm_|pypi-|eyJ)"
                        r"[A-Za-z0-9_.-]{6,}$")
_MAX_FRAGMENT = 512


def secret_fragments(secrets: Iterable[str]) -> tuple[set[str], set[str]]:
    """Proper prefixes (heads) and suffixes (tails) of each secret, as written and XML-escaped."""
    heads: set[str] = set()
    tails: set[str] = set()
    for secret in secrets:
        for form in {secret, html.escape(secret, quote=False), html.escape(secret)}:
            n = len(form)
            for k in range(MIN_FRAGMENT, min(n, _MAX_FRAGMENT)):
                heads.add(form[:k])
                tails.add(form[n - k:])
    return heads, tails


def screen_piece(piece: str, heads: set[str], tails: set[str]) -> str:
    if piece.startswith("<"):
        return piece
    parts = _SPACES.split(piece)
    last = max((i for i in range(0, len(parts), 2) if parts[i]), default=-1)
    for i in range(0, len(parts), 2):
        if parts[i]:
            parts[i] = _screen_word(parts[i], heads, tails, at_end=i == last)
    return "".join(parts)


def _screen_word(word: str, heads: set[str], tails: set[str], at_end: bool) -> str:
    lead = next((e for e in _ELLIPSIS if word.startswith(e)), "")
    core = word[len(lead):]
    end = next((e for e in _ELLIPSIS if core.endswith(e)), "")
    core = core[:len(core) - len(end)]
    n = len(core)
    if heads:
        # the start of a secret, cut at its end: "/data/ghp_AbCdEf" -> "/data/[redacted]"
        for k in range(min(n, _MAX_FRAGMENT), MIN_FRAGMENT - 1, -1):
            if core[n - k:] in heads:
                core = core[:n - k] + REDACTED
                break
        n = len(core)
        # the end of a secret, cut at its start
        for k in range(min(n, _MAX_FRAGMENT), MIN_FRAGMENT - 1, -1):
            if core[:k] in tails:
                core = REDACTED + core[k:]
                break
    if at_end:
        core = _CUT_SHAPE.sub(REDACTED, core)
    return lead + core + end
