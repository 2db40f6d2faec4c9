"""What a text in Chinese still says in English that the catalogue (`tui.i18n`) translates: the sign that a zh path
took the English string (or quoted it) where the Chinese one was at hand."""

from __future__ import annotations

import string

from tui.i18n import CATALOGUE

# a fragment this long, of three words or more, is a sentence of cardbench's, not a term a Chinese text keeps
MIN_CHARS, MIN_WORDS = 12, 3


def _fragments() -> dict[str, str]:
    """English literal pieces of every entry (the text between its placeholders) -> the id they come from."""
    found: dict[str, str] = {}
    for key, (english, _chinese) in CATALOGUE.items():
        for literal, *_field in string.Formatter().parse(english):
            piece = literal.strip(" .;:,()")
            if len(piece) >= MIN_CHARS and len(piece.split()) >= MIN_WORDS:
                found.setdefault(piece, key)
    return found


FRAGMENTS = _fragments()


def english_leaks(text: str) -> list[str]:
    """'id: fragment' for each catalogue sentence whose English appears in ``text``."""
    return sorted(f"{key}: {piece!r}" for piece, key in FRAGMENTS.items() if piece in text)
