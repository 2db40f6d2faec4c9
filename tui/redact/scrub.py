"""A text through the patterns of :mod:`tui.redact.rules`: whole, or line-wise where a long text can change."""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable, Mapping

from tui.redact.rules import (AUTH_HEADER, BEARER, FOLLOWING_LINES, KEY_VALUE, OPTION_VALUE, REDACTED,
                                     TOKEN_SHAPES, TRIGGERS, URL_USERINFO, is_secret_name)


@functools.lru_cache(maxsize=64)
def alternation(secrets: frozenset[str]) -> re.Pattern[str]:
    # longest first, so a secret containing another is removed whole
    return re.compile("|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True)))


def _shape_may_match(shape: str) -> bool:
    """Could any pattern match from a line like this (its digits left out: no trigger holds one)?"""
    low = shape.lower()
    if len(low) != len(shape):
        return True  # "İ" lowers to two characters: let the patterns decide
    # the two letters (?i) also matches in a non-ASCII form that lower() keeps: dotless i, long s
    low = low.replace("\u0131", "i").replace("\u017f", "s")
    for trigger in TRIGGERS:
        at = low.find(trigger)
        if trigger == "token":
            # "tokens" is not a secret name part ("tokens_per_s"): "token" must end its part
            while at != -1 and shape[at + 5:at + 6] == "s":
                at = low.find(trigger, at + 1)
        if at != -1:
            return True
    return False


def flag_lines(text: str, lines: list[str], also: str = "") -> list[bool] | None:
    """Per line: could a pattern match from it (or does it hold ``also``)? None when the whole text must go
    through the patterns (it holds a private key: a PEM block spans lines)."""
    if text.isascii():
        # bytes translate at C speed; step lines that differ only in their numbers share one shape
        shapes: list[Any] = text.encode("ascii").translate(None, b"0123456789").split(b"\n")
        decode = bytes.decode
    else:
        shapes = text.translate(_NO_DIGITS).split("\n")
        decode = str
    verdict: dict[Any, bool] = {}
    for shape in set(shapes):
        line = decode(shape)
        verdict[shape] = _shape_may_match(line) or bool(also and also in line)
    if any(verdict[shape] and "-----begin" in decode(shape).lower() for shape in verdict):
        return None
    if len(shapes) != len(lines):  # cannot happen (digits are not line breaks); if it did, the slow way
        return None
    return [verdict[shape] for shape in shapes]


_NO_DIGITS = {ord(c): None for c in "0123456789"}


def _blank(line: str) -> bool:
    return not line.replace("&#160;", "").replace("&nbsp;", "").strip()


def reach(lines: list[str], i: int) -> int:
    """The last line a match starting on line i may reach: FOLLOWING_LINES lines with something on them."""
    seen, j = 0, i
    while seen < FOLLOWING_LINES and j + 1 < len(lines):
        j += 1
        if not _blank(lines[j]):
            seen += 1
    return j


def patterns(text: str) -> str:
    """Every pattern over the whole text: token shapes, URL credentials, auth headers, secret names' values."""
    text = TOKEN_SHAPES.sub(REDACTED, text)
    text = URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
    text = AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}{REDACTED}", text)
    text = BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _scan(KEY_VALUE, "name", text, _blank_key_value)
    text = _scan(OPTION_VALUE, "opt", text, _blank_option_value)
    return text


def leaves(obj: Any) -> Iterable[Any]:
    if isinstance(obj, Mapping):
        for value in obj.values():
            yield from leaves(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from leaves(value)
    else:
        yield obj


def _scan(pattern: re.Pattern[str], name_group: str, text: str, blank) -> str:
    """Like pattern.sub, but a non-secret name gives its value back to the scan.

    In ``config: hf_token=x`` the first candidate is ``config`` with the value
    ``hf_token=x``; a plain ``sub`` would step over the real secret inside it.
    """
    out: list[str] = []
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            break
        if is_secret_name(match.group(name_group)):
            out.append(text[pos:match.start()])
            out.append(blank(match))
            pos = match.end()
        else:
            resume = max(match.start("val"), match.start() + 1)
            out.append(text[pos:resume])
            pos = resume
    out.append(text[pos:])
    return "".join(out)


def _blank_key_value(match: re.Match[str]) -> str:
    value = match.group("val")
    if value.startswith("&quot;"):
        replacement = f"&quot;{REDACTED}&quot;"
    elif value[:1] in "\"'":
        replacement = f"{value[0]}{REDACTED}{value[0]}"
    elif match.group("q") == '"':
        # JSON in a text (a log line): a bare value (a number, true, false) becomes the marker as a JSON string,
        # and null, which holds nothing, stays; the line is still JSON
        if value == "null":
            return match.group(0)
        replacement = f'"{REDACTED}"'
    else:
        replacement = REDACTED
    q = match.group("q")
    return f"{q}{match.group('name')}{q}{match.group('sep')}{replacement}"


def _blank_option_value(match: re.Match[str]) -> str:
    if match.group("val") == REDACTED:
        return match.group(0)
    return f"{match.group('opt')}{match.group('sep')}{REDACTED}"

