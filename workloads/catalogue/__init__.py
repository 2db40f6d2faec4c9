"""The one catalogue of cardbench's words in English and Chinese (the reviewers' language in the trial campaigns),
keyed by message id, for the workloads, the doctor, the report, compare and the CPU trap.

    say("report.summary", "zh")                    -> '概要'
    say("doctor.disk.unreadable", path="/data")    -> 'cannot read the free space of /data'
    say_or("status.odd", "zh", "odd")              -> 'odd' (no such id: the fallback)
    Message("hint.disk_full")("zh")                -> the id said in Chinese when it is shown, not before
    message("doctor.disk.unreadable", path="/d")   -> a Message with its parameters

An id is ``area.name``; each area is a module of this package holding ``WORDS`` (a workload's words are
``workload.<name>.<key>`` in the module named after it), whose entries are
``(english, chinese)`` with the same ``{placeholders}``. A value that is callable (a `Message`, a quoted string) is
said in the language asked for, so a sentence can hold another. Plain data, no Textual and no torch, so a workload
child and the host read the same table (`tui.i18n` is where the host joins and quotes what it says).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from workloads.catalogue import (cold_start, command, compare, cpu_trap, dataio, device, doctor, finetune, fit,
                                 generate, hints, llm, microbench, opscan, ready, report, resnet50, serve, shared, soak,
                                 workbench)

LANGS = ("en", "zh")
# the host's areas, then each workload's words (``workload.<name>.``) and the words several workloads say alike
AREAS = (report, doctor, hints, compare, cpu_trap, workbench, ready, cold_start,
         command, dataio, finetune, fit, generate, llm, microbench, opscan, resnet50, serve, soak, shared, device)


def _merged() -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for area in AREAS:
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


class Said:
    """What is said in either language when it is shown: called with a language it is that language's text;
    ``en`` (and ``str()``) is the English that events, run.log and the terminal carry."""

    def __call__(self, lang: str = "en") -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self("en")

    @property
    def en(self) -> str:
        return self("en")

    @property
    def zh(self) -> str:
        return self("zh")


@dataclass(frozen=True)
class Message(Said):
    """A message id and its parameters, said in a language when it is shown: a workload's label, a hint, a note.

    Called with a language it is that language's sentence (as every label of a spec is); ``en`` (and ``str()``)
    is the English that events, run.log and the terminal carry."""

    id: str
    params: tuple[tuple[str, Any], ...] = ()   # (name, value) pairs: a message is hashable, as a spec's fields are

    def __call__(self, lang: str = "en") -> str:
        return say(self.id, lang, **dict(self.params))


def message(key: str, /, **params: Any) -> Message:
    """``message("workload.serve.note", level=3)``: the id and its parameters, said later in either language."""
    return Message(key, tuple(params.items()))


def joined(items: Iterable[str], lang: str = "en", comma: bool = False) -> str:
    """Items one after the other in a sentence of ``lang``: 'a; b' / 'a；b' (the report's list separator), with
    ``comma`` 'a, b' / 'a，b' (short items: counts, names)."""
    return say("report.comma" if comma else "report.list_sep", lang).join(items)


@dataclass(frozen=True)
class Joined(Said):
    """Messages (or plain strings: numbers, names) said one after another as each language lists them: a sentence
    put together from the parts that apply ('1.9x the output tokens/s ...; 48 requests/s served ...')."""

    items: tuple[Any, ...]
    comma: bool = False

    def __call__(self, lang: str = "en") -> str:
        return joined((item(lang) if callable(item) else str(item) for item in self.items), lang, self.comma)


def message_id_of(english: str, area: str) -> str | None:
    """The id in ``area`` (``"hint."``) whose English is ``english``: the id of a sentence that an old run dir
    carries as English only (written before events carried the id); None when no entry has that English."""
    return next((key for key, (en, _zh) in CATALOGUE.items() if key.startswith(area) and en == english), None)
