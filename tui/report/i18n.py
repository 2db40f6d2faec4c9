"""The report's words in English and Chinese (the reviewers' language in the trial campaigns).

In Chinese, everything cardbench writes is Chinese; what it quotes (a tool's output, an error message, a
device's name, English that no table here translates) is in a code span, so a reader sees it is quoted.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from tui.doctor.check import own_words
from tui.i18n import CATALOGUE, doctor_pointer, hint_in, say
from tui.i18n.voice import Voice, quoted  # noqa: F401  (quoted: the notes of the headless export take it from here)
from workloads import registry
from workloads.catalogue import Message, message

_AREA = "report."  # the report's sentences in the catalogue (workloads.catalogue.report); Words and note take their name


def note(key: str, **values: Any) -> Message:
    """``note("note_not_run", name=spec.title)``: one of the catalogue's ``report.`` sentences with its values (a
    value that is callable, a `Message`, a `workloads.spec.Text` or `quoted`, is said in the language), said in the
    reader's language when the report is written; ``str()`` of it is the English."""
    if _AREA + key not in CATALOGUE:
        raise KeyError(f"no report sentence {key!r}")
    return message(_AREA + key, **values)


_CPU_DEVICE = re.compile(r"cpu \((?P<arch>[^,()]*), (?P<threads>\d+) threads\)")
_DOCTOR_POINTER = doctor_pointer()


class Words(Voice):
    """The report's sentences (``report.<key>``) in one language, and how it says what it did not write."""

    area = _AREA

    def text(self, said: Any) -> str:
        """A note or caption: a `Message` or `Text` in this language; a plain string as it was given."""
        return said(self.lang) if callable(said) else str(said)

    def status(self, status: Any) -> str:
        """A run's end status ('ok', 'stopped'...)."""
        text = str(status or "")
        return self.say_or(f"status.{text}", self.quote(text)) if self.zh else text

    def check_status(self, status: Any) -> str:
        """A doctor check's verdict (PASS, WARN, FAIL, SKIP)."""
        text = str(status or "")
        return self.say_or(f"verdict.{text}", self.quote(text)) if self.zh else text

    def check(self, row: Mapping[str, Any], key: str) -> str:
        """A doctor check's name, evidence or hint: the check's own words in Chinese when it has them (its message,
        or an old doctor.json's Chinese; a name by its id), else a hint this module knows, else the English,
        quoted."""
        english = str(row.get(key) or "")
        if not self.zh:
            return english
        own = own_words(row, key, "zh")
        if own:
            return own
        if key == "hint":
            return self.hint(english, row.get("hint_id"))
        return self.quote(english)

    def hint(self, text: Any, hint_id: Any = None) -> str:
        """One of ``workloads.hints``' pieces of advice (with the pointer to the doctor, or not), by the id an event
        carries beside its English (``hint_id``) or, in a run from before ids, by that English."""
        english = str(text or "")
        if not self.zh or not english:
            return english
        advice, pointer, _rest = english.partition(_DOCTOR_POINTER)
        said = hint_in("zh", advice.strip().rstrip("."), hint_id if isinstance(hint_id, str) else None)
        if said is None:
            return self.quote(english)
        return say("hint.with_doctor", "zh", hint=said, doctor=say("hint.see_doctor", "zh")) if pointer else said

    def warning(self, warning: Mapping[str, Any]) -> str:
        """A workload's warning: its message, and in Chinese what its code means before the quoted message."""
        message = str(warning.get("message") or "")
        if not self.zh:
            return message
        code_id = f"warning.{warning.get('code') or ''}"
        meaning = self.say_or(code_id, "")
        return self("warning_known", meaning=meaning, message=self.quote(message)) if meaning else \
            self("warning_unknown", message=self.quote(message))

    def device(self, device: Any) -> str:
        """Where a run ran, as its start event says ('cpu (x86_64, 16 threads)', 'cuda:0 (NVIDIA H100)')."""
        text = str(device or "")
        if not self.zh or not text:
            return text
        m = _CPU_DEVICE.fullmatch(text.strip())
        if m:
            return self("cpu_device", arch=self.quote(m["arch"]), threads=m["threads"])
        return self.quote(text)

    def title(self, workload: str) -> str:
        """The workload's title from its spec, in this language."""
        return registry.spec_for(workload).title(self.lang)

    def metric(self, key: str, workload: str | None = None) -> str:
        """A metric's label: the workload's spec says it for its own metrics, this table for the common rows."""
        metric = registry.spec_for(workload).metric(key) if workload else None
        if metric is not None:
            return metric.label(self.lang)
        return self.say_or(f"metric.{key}", key)
