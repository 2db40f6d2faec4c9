"""A bundle's JSON redacted as JSON, so that it stays JSON.

The text rules (:mod:`~tui.redact.scrub`) run over a JSON text once blanked ``"api_key_env": null`` into
``"api_key_env": [redacted]``, and `cardbench compare` refused every serve bundle, even against a copy of itself
(issue 37). Here an object is redacted as an object (:meth:`~tui.redact.redactor.Redactor.obj`: a secret
value becomes the marker as a string, every string and key goes through the text rules on its own) and written as
JSON after; only a line that is no JSON (a torn last line) goes through the text rules as text.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from tui.redact.scrub import flag_lines

# ``redactor`` below is a tui.redact.redactor.Redactor (not imported: it calls these)


def json_text(redactor: Any, obj: Any) -> str:
    """``obj`` as an indented JSON file, redacted as JSON."""
    # plain JSON first: a value json.dumps writes through str() (a Path) is then a string the rules see
    plain = json.loads(json.dumps(obj, ensure_ascii=False, default=str))
    if redactor.hiding:   # a recorded secret in any string is known before the first string is redacted
        for text in strings(plain):
            redactor.discover(text)
    return json.dumps(redactor.obj(plain), indent=2, ensure_ascii=False) + "\n"


def jsonl(redactor: Any, text: str) -> str:
    """JSON lines redacted object by object (secret keys, option lists, strings), each written back as JSON.

    A line nothing in could be redacted (no trigger, no learned value, no backslash: a JSON escape hides what it
    spells) is kept as it is, undecoded: most of a long run's events.jsonl. A line that is no JSON goes through the
    text rules, with the torn lines next to it (a private key's block spans lines).
    """
    # split at "\n" only: a JSON string may hold U+2028, which splitlines() would cut it at
    body = text[:-1] if text.endswith("\n") else text
    if not body:
        return ""
    if redactor.hiding:
        redactor.discover(body)
    lines = body.split("\n")
    flags = flag_lines(body, lines, also="\\")
    present = [s for s in redactor._secrets if s in body]
    if flags is not None and not present and not any(flags):
        return body + "\n"   # nothing the text rules would find either (each of them needs a trigger)
    out: list[str] = []
    torn: list[str] = []
    for i, line in enumerate(lines):
        if flags is not None and not flags[i] and not any(s in line for s in present):
            kept = line
        else:
            try:
                kept = json.dumps(redactor.obj(json.loads(line)), separators=(",", ":"), ensure_ascii=False)
            except (ValueError, RecursionError):   # torn, or nested too deep to walk: no JSON to keep
                torn.append(line)
                continue
        if torn:
            out.append(redactor.text("\n".join(torn)))
            torn.clear()
        out.append(kept)
    if torn:
        out.append(redactor.text("\n".join(torn)))
    return "\n".join(out) + "\n"


def strings(obj: Any) -> Iterable[str]:
    """Every string of a JSON-like object, its keys too."""
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            yield str(key)
            yield from strings(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from strings(value)
    elif isinstance(obj, str):
        yield obj
