"""One doctor verdict (`DoctorCheck`), the stable ids, and the look-ups other modules use to read them.

A check is found by its ``id``, never by its display name or by parsing its
evidence: the headless suite asks whether torch sees the accelerator and which
autocast dtype works, the report asks for the initialisation time. The look-ups
take `DoctorCheck` objects or their dicts (``doctor.json`` beside a headless
run), including dicts written before checks had ids: those are matched by the
name the check had then, which ``TITLES`` keeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tui.i18n import say

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
    # the Chinese of cardbench's own words ({"name", "evidence", "hint"}: each optional); quoted tool
    # output stays as the tool wrote it, and a report in Chinese falls back to the English field
    zh: dict[str, str] = field(default_factory=dict, compare=False)
    hint_id: str = ""  # the catalogue's id of the hint ("hint.out_of_memory"), when it is one; the report says it by it

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "status": self.status, "evidence": self.evidence,
                "hint": self.hint, "hint_id": self.hint_id or None, "value": self.value, "unit": self.unit,
                "zh": dict(self.zh)}


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
