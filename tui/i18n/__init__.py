"""Where the host says the catalogue's words (`workloads.catalogue`, the one table of (English, Chinese) by id):
the lookup, lists joined as each language joins them, and the pointer to the doctor.

    say("report.summary", "zh")                    -> the catalogue's Chinese of 'Summary'
    text("compare.note.no_events", side="A", run="r1")   -> Text(en=..., zh=...): both, for a note said later
    joined(["a", "b"], "zh")                       -> 'a；b'

``say``, ``say_or``, ``joined`` and ``CATALOGUE`` are the catalogue's own, named here as well because the host's modules say
everything through this package (one import for a sentence, a list and a quote); the table is not copied.
"""

from __future__ import annotations

from typing import Any

from workloads.catalogue import CATALOGUE, LANGS, joined, message_id_of, say, say_or
from workloads.spec import Text

__all__ = ["CATALOGUE", "LANGS", "say", "say_or", "joined", "doctor_pointer", "hint_in", "text"]


def doctor_pointer(lang: str = "en") -> str:
    """What follows a hint that points to the doctor ('; `cardbench doctor` says what torch sees and why'): the
    catalogue's ``hint.with_doctor`` with no hint, so a reader that splits it off and a writer that adds it agree."""
    return say("hint.with_doctor", lang, hint="", doctor=say("hint.see_doctor", lang))


def text(key: str, /, **values: Any) -> Text:
    """The sentence in both languages, as a `workloads.spec.Text` (a note kept and said later, a doctor check)."""
    return Text(say(key, "en", **values), say(key, "zh", **values))


def hint_in(lang: str, english: str, hint_id: str | None = None) -> str | None:
    """A hint of `workloads.hints` in ``lang``: by the id an event or a check carries beside the English, else (a
    run dir or a doctor.json written before ids) by its English; None when the catalogue has neither."""
    key = hint_id if hint_id in CATALOGUE else message_id_of(english, "hint.")
    return say(key, lang) if key else None
