"""One doctor verdict (`DoctorCheck`), the stable ids, and the look-ups other modules use to read them.

A check is found by its ``id``, never by its display name or by parsing its
evidence: the headless suite asks whether torch sees the accelerator and which
autocast dtype works, the report asks for the initialisation time. The look-ups
take `DoctorCheck` objects or their dicts (``doctor.json`` beside a headless
run), including dicts written before checks had ids: those are matched by the
name the check had then, which ``TITLES`` keeps.

A check's own words (its evidence and hint where cardbench wrote them) are catalogue messages, said in the
reader's language where they are shown (`own_words`): the doctor's terminal in English, the report in either.
``doctor.json`` keeps each field's English, adds the messages (``said``: id and parameters) and, for readers
from before them, the Chinese (``zh``); a doctor.json written before messages has only the ``zh`` block, and
`own_words` reads that too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tui.i18n import CATALOGUE, say
from workloads.catalogue import Message
from workloads.spec import Text

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"
STATUSES = (PASS, WARN, FAIL, SKIP)

# the ids, in the order the doctor runs them; an id never changes once a file holds it
IDS: tuple[str, ...] = ("cli.answers", "nvml.loads", "pci.accelerators", "torch.imports", "torch.sees_device",
                        "torch.arch_list", "device.init", "device.kernel", "device.autocast.fp16",
                        "device.autocast.bf16", "tensorflow.sees_device", "disk.free", "env.visible_devices",
                        "device.busy", "device.health")
# id -> display name: the catalogue's ``check.<id>`` (its Chinese is the report's and the doctor's zh name)
TITLES: dict[str, str] = {check_id: say(f"check.{check_id}") for check_id in IDS}

# a doctor.json written before checks carried a value has the number only in its evidence
_LEGACY_VALUE = {"device.init": re.compile(r"([0-9]+(?:\.[0-9]+)?) s to the first tensor")}


@dataclass(frozen=True)
class DoctorCheck:
    name: str
    status: str      # PASS / WARN / FAIL / SKIP
    evidence: str    # what was seen, with numbers
    hint: str = ""   # one line: what to do; empty when there is nothing to do
    id: str = ""     # stable ("device.init"); what programs match on, the name is for people
    value: float | None = None  # the check's number where it has one (seconds, GiB, a device count)
    unit: str | None = None     # of ``value``: "s", "GiB", "devices"...
    hint_id: str = ""  # the catalogue's id of the hint ("hint.out_of_memory"), when it is one; the report says it by it
    # cardbench's own words, said when shown: {"evidence", "hint"} -> a catalogue `Message` (or a `Text` put
    # together from several); a field without one (quoted tool output) reads as its English everywhere
    words: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def said(self, key: str, lang: str = "en") -> str:
        """The name, evidence or hint in ``lang``: its own words, else the English field."""
        return own_words(self, key, lang) or str(getattr(self, key) or "")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "status": self.status, "evidence": self.evidence,
                "hint": self.hint, "hint_id": self.hint_id or None, "value": self.value, "unit": self.unit,
                "said": said_json(self), "zh": chinese_of(self)}

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> DoctorCheck:
        """A doctor.json row back as a check: its messages (``said``), or an old row's Chinese (``zh``)."""
        value = row.get("value")
        words = {key: found for key in _WORDS if (found := _words_of(row, key, "zh")) is not None}
        return cls(str(row.get("name") or ""), str(row.get("status") or ""), str(row.get("evidence") or ""),
                   str(row.get("hint") or ""), id=id_of(row), value=float(value) if value is not None else None,
                   unit=row.get("unit"), hint_id=str(row.get("hint_id") or ""), words=words)


_WORDS = ("evidence", "hint")   # the fields a check says in words of its own (its name is the catalogue's by id)


def _plain(value: Any) -> Any:
    """A message's parameter as JSON: plain data as it is, anything said (a message, a quote) as its two strings."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if callable(value):
        return {"en": value("en"), "zh": value("zh")}
    return str(value)


def _said_of(words: Any) -> dict[str, Any] | None:
    """A check's words as JSON: a message's id and parameters, else (a `Text`) its two strings."""
    if isinstance(words, Message):
        return {"id": words.id, "params": {k: _plain(v) for k, v in words.params}}
    if callable(words):
        return {"en": words("en"), "zh": words("zh")}
    return None


def _param(value: Any) -> Any:
    if isinstance(value, Mapping) and "en" in value:
        return Text(str(value.get("en") or ""), str(value.get("zh") or ""))
    return value


def _words_from(said: Any) -> Any:
    """``_said_of``'s JSON back as words (None for what this version cannot say: an id it does not know)."""
    if not isinstance(said, Mapping):
        return None
    if said.get("id") in CATALOGUE and isinstance(said.get("params", {}), Mapping):
        found = Message(said["id"], tuple((k, _param(v)) for k, v in (said.get("params") or {}).items()))
        try:
            found("en"), found("zh")
        except (KeyError, IndexError, ValueError):  # the sentence's placeholders changed since it was written
            return None
        return found
    return _param(said) if "en" in said else None


def _words_of(check: Any, key: str, lang: str) -> Any:
    """A check's own words for ``key`` (evidence, hint): its message; in an old doctor.json, its Chinese."""
    if not isinstance(check, Mapping):
        return (getattr(check, "words", None) or {}).get(key)
    said = check.get("said")
    found = _words_from(said.get(key)) if isinstance(said, Mapping) else None
    old = check.get("zh")
    if found is None and lang == "zh" and isinstance(old, Mapping) and isinstance(old.get(key), str) and old[key].strip():
        return Text(str(check.get(key) or ""), old[key])
    return found


def own_words(check: Any, key: str, lang: str = "en") -> str | None:
    """The check's own words for its name, evidence or hint in ``lang`` (objects and doctor.json dicts, old ones
    too); None where it has none (quoted tool output: the caller quotes the English field)."""
    if key == "name":
        old = field_of(check, "zh")
        if lang == "zh" and isinstance(old, Mapping) and isinstance(old.get("name"), str) and old["name"].strip():
            return old["name"]
        found = f"check.{id_of(check)}"
        return say(found, lang) if found in CATALOGUE else None
    words = _words_of(check, key, lang)
    text = words(lang) if words is not None else None
    return text if text and text.strip() else None


def said_json(check: Any) -> dict[str, Any]:
    """The ``said`` block of a check's dict: each own word's message (id and parameters) as JSON."""
    said = {key: _said_of(_words_of(check, key, "en")) for key in _WORDS}
    return {key: value for key, value in said.items() if value is not None}


def chinese_of(check: Any) -> dict[str, str]:
    """The ``zh`` block of a check's dict (what readers from before messages say in Chinese): the Chinese of its
    own words, each present only where it has some."""
    said = {key: own_words(check, key, "zh") for key in ("name", *_WORDS)}
    return {key: value for key, value in said.items() if value}


def totals(checks: Iterable[Any]) -> str:
    """'11 PASS, 1 WARN, 0 FAIL, 1 SKIP': every status, zeros included (a missing FAIL is news too)."""
    statuses = [str(field_of(c, "status") or "").upper() for c in checks]
    return ", ".join(f"{statuses.count(s)} {s}" for s in STATUSES)


def field_of(check: Any, key: str) -> Any:
    """A field of a DoctorCheck or of its dict; None where it has none."""
    if isinstance(check, Mapping):
        return check.get(key)
    return getattr(check, key, None)


def id_of(check: Any) -> str:
    """The check's id; for a dict written before ids existed, the id its name belongs to ('' if none)."""
    found = field_of(check, "id")
    if found:
        return str(found)
    name = field_of(check, "name")
    return next((cid for cid, title in TITLES.items() if title == name), "")


def find_check(checks: Iterable[Any] | None, check_id: str) -> Any | None:
    return next((c for c in checks or () if id_of(c) == check_id), None)


def check_passed(checks: Iterable[Any] | None, check_id: str) -> bool:
    found = find_check(checks, check_id)
    return found is not None and field_of(found, "status") == PASS


def value_of(check: Any) -> float | None:
    """A check's number; for a dict written before checks carried one, read from its evidence."""
    value = field_of(check, "value")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    legacy = _LEGACY_VALUE.get(id_of(check))
    if legacy is not None and isinstance(check, Mapping) and "value" not in check:
        m = legacy.search(str(check.get("evidence") or ""))
        return float(m.group(1)) if m else None
    return None


def check_value(checks: Iterable[Any] | None, check_id: str) -> float | None:
    """The check's number (the initialisation seconds, the free GiB...); None when it has none."""
    found = find_check(checks, check_id)
    return value_of(found) if found is not None else None


def accelerator_seen(checks: Iterable[Any] | None) -> bool:
    """Did the doctor find torch using an accelerator (its check PASSed)?"""
    return check_passed(checks, "torch.sees_device")


def best_autocast(checks: Iterable[Any] | None) -> str:
    """The mixed precision the device ran in the doctor: bf16 before fp16 (fp32's range), else "off"."""
    for mode in ("bf16", "fp16"):
        if check_passed(checks, f"device.autocast.{mode}"):
            return mode
    return "off"
