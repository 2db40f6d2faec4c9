"""Where the host says the catalogue's words (`workloads.catalogue`, the one table of (English, Chinese) by id):
the lookup, lists joined as each language joins them, and the pointer to the doctor.

    say("report.summary", "zh")                    -> the catalogue's Chinese of 'Summary'
    joined(["a", "b"], "zh")                       -> 'a；b'

``say``, ``say_or``, ``joined`` and ``CATALOGUE`` are the catalogue's own, named here as well because the host's
modules say everything through this package (one import for a sentence, a list and a quote); the table is not
copied. A sentence said later is a `workloads.catalogue.Message`.
"""

from __future__ import annotations

from workloads.catalogue import CATALOGUE, LANGS, joined, message_id_of, say, say_or

__all__ = ["CATALOGUE", "LANGS", "say", "say_or", "joined", "message_id_of", "doctor_pointer", "hint_in"]


def doctor_pointer(lang: str = "en") -> str:
    """What follows a hint that points to the doctor ('; `cardbench doctor` says what torch sees and why'): the
    catalogue's ``hint.with_doctor`` with no hint, so a reader that splits it off and a writer that adds it agree."""
    return say("hint.with_doctor", lang, hint="", doctor=say("hint.see_doctor", lang))


def hint_in(lang: str, english: str, hint_id: str | None = None) -> str | None:
    """A hint of `workloads.hints` in ``lang``: by the id an event or a check carries beside the English, else (a
    run dir or a doctor.json written before ids) by its English; None when the catalogue has neither."""
    key = hint_id if hint_id in CATALOGUE else message_id_of(english, "hint.")
    return say(key, lang) if key else None
