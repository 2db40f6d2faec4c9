"""One catalogue of cardbench's own words in English and Chinese (the reviewers' language in the trial campaigns),
keyed by id, for the doctor, the report, compare and the CPU trap.

    say("report.summary", "zh")                    -> '概要'
    say("doctor.disk.unreadable", path="/data")    -> 'cannot read the free space of /data'
    text("compare.note.no_events", side="A", run="r1")   -> Text(en=..., zh=...): both, for a note said later
    say_or("status.odd", "zh", "odd")              -> 'odd' (no such id: the fallback)
    joined(["a", "b"], "zh")                       -> 'a；b'

An id is ``area.name`` (the areas' tables: `tui.i18n.report`, `.doctor`, `.hints`, `.compare`, `.cpu_trap`); each
entry is ``(english, chinese)`` with the same ``{placeholders}``. A value that is callable (a `Text`, a quoted
string) is said in the language asked for, so a sentence can hold another. Plain data, no Textual and no torch:
imported where a sentence is first said (not by the workbench's first frame).
"""

from __future__ import annotations

from typing import Any, Iterable

from tui.i18n import compare, cpu_trap, doctor, hints, report
from workloads.spec import Text

LANGS = ("en", "zh")


def _merged() -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for area in (report, doctor, hints, compare, cpu_trap):
        for key, pair in area.WORDS.items():
            if key in found:
                raise ValueError(f"catalogue id {key!r} is defined twice")  # a test imports this: never in use
            found[key] = pair
    return found


CATALOGUE: dict[str, tuple[str, str]] = _merged()


def say(key: str, lang: str = "en", /, **values: Any) -> str:
    """The sentence ``key`` in ``lang`` ("en" or "zh"), its placeholders filled (callable values called with lang)."""
    words = CATALOGUE[key][1 if lang == "zh" else 0]
    if not values:
        return words
    return words.format(**{k: v(lang) if callable(v) else v for k, v in values.items()})


def say_or(key: str, lang: str, fallback: str, /, **values: Any) -> str:
    """``say(key, lang, ...)`` when the catalogue has ``key``, else ``fallback`` (a status, a code or a currency that
    no table names: the caller says how it is shown)."""
    return say(key, lang, **values) if key in CATALOGUE else fallback


def joined(items: Iterable[str], lang: str = "en", comma: bool = False) -> str:
    """Items one after the other in a sentence of ``lang``: 'a; b' / 'a；b' (the report's list separator), with
    ``comma`` 'a, b' / 'a，b' (short items: counts, names)."""
    return say("report.comma" if comma else "report.list_sep", lang).join(items)


def doctor_pointer(lang: str = "en") -> str:
    """What follows a hint that points to the doctor ('; `cardbench doctor` says what torch sees and why'): the
    catalogue's ``hint.with_doctor`` with no hint, so a reader that splits it off and a writer that adds it agree."""
    return say("hint.with_doctor", lang, hint="", doctor=say("hint.see_doctor", lang))


def text(key: str, /, **values: Any) -> Text:
    """The sentence in both languages, as a `workloads.spec.Text` (a note kept and said later, a doctor check)."""
    return Text(say(key, "en", **values), say(key, "zh", **values))


_HINTS_ZH: dict[str, str] = {}


def hint_zh(english: str) -> str | None:
    """The Chinese of a hint given in English (``workloads.hints`` writes English only, and a run or a doctor.json
    carries it as written): the ``hint.*`` entry whose English it is; None when the catalogue has none."""
    if not _HINTS_ZH:
        _HINTS_ZH.update({en: zh for key, (en, zh) in CATALOGUE.items() if key.startswith("hint.")})
    return _HINTS_ZH.get(english)
