"""The CPU trap's words: the run's warning, the warning before a run, the banner's lines, the report's headline.

Built from the facts in `tui.cpu_trap.facts`; UI-free. Every message says what ran where, what was not
used, why (torch sees none of the listed cards) and what to do (the hint, and `cardbench doctor`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui.cpu_trap.facts import (Listed, RunFacts, TorchView, doctor_count, facts_of, listed_in, mismatch_hint,
                                requested_device, view_of_checks)
from tui.i18n import doctor_pointer, hint_in, joined, say
from workloads.facts.formatting import code
from workloads import registry

DOCTOR_HINT = say("hint.see_doctor")


def with_doctor(hint: str, lang: str = "en") -> str:
    """The hint and the pointer to `cardbench doctor` (once)."""
    hint = hint.rstrip(say("workload.shared.full_stop", lang)) if lang == "zh" else (hint or mismatch_hint()).rstrip(". ")
    doctor = say("hint.see_doctor", lang)
    return say("hint.with_doctor", lang, hint=hint, doctor=doctor) if doctor not in hint else hint


def run_message(workload: str, device: str, listed: Listed, hint: str) -> str:
    """The run's warning: what ran where, what was not used, why, and what to do."""
    where = "" if device.strip().lower() == "cpu" else f" ({device})"
    return (f"{workload} runs on the CPU{where}, not on {listed.describe()}: torch sees none of them, "
            f"so its figures are CPU figures. Hint: {with_doctor(hint)}")


def outcome(workload: str, args: Iterable[Any] | None, auto: str = " (device auto)") -> str:
    wanted = requested_device(args)
    return f"{workload} with --device {wanted} will fail" if wanted else f"{workload}{auto} would run on the CPU"


def before_message(workload: str, args: Iterable[Any] | None, listed: Listed, view: TorchView) -> str:
    """The warning before a run that would land on the CPU (or fail) while the cards sit idle."""
    return f"torch sees none of {listed.describe()}: {outcome(workload, args)}. Hint: {with_doctor(view.hint)}"


def _cards(count: int) -> str:
    """'the 1 listed card', 'the 2 listed cards': the banner's words for what sits idle."""
    return f"the {count} listed card" + ("" if count == 1 else "s")


def short_hint(hint: str) -> str:
    """A hint without the pointer to `cardbench doctor` (a screen that has a doctor key says it its own way)."""
    return (hint or mismatch_hint()).replace(doctor_pointer(), "")


def alarm_lines(warning: Any) -> tuple[str, str]:
    """A CPU-trap warning event as two banner lines: what happened (fits 80 columns), then why and the hint."""
    data = warning.to_dict() if hasattr(warning, "to_dict") else dict(warning or {})
    what, _, hint = str(data.get("message") or "").partition(" Hint: ")
    count = data.get("accelerators")
    if isinstance(count, int) and data.get("workload"):
        what = f"CPU ONLY: {data['workload']} runs on the CPU; {_cards(count)} {'is' if count == 1 else 'are'} NOT used"
    return what, f"torch sees none of them. hint: {short_hint(str(data.get('hint') or hint))}"


def before_lines(workload: str, args: Iterable[Any] | None, count: int, hint: str) -> tuple[str, str]:
    """The warning before a run as two banner lines: what would happen (fits 80 columns), then the hint."""
    return f"torch sees NONE of {_cards(count)}: {outcome(workload, args, '')}", f"hint: {short_hint(hint)}"


def headline(runs: Sequence[Any], devices: Any = None, checks: Iterable[Any] | None = None, *, lang: str = "en",
             hint: Callable[[str], str] | None = None) -> str | None:
    """The report's first line when work ran on the CPU while accelerators are listed; else None.

    ``runs``: the report's `WorkloadSummary`s (or `RunRecord`s); ``devices``: the
    export's telemetry snapshot (its dict, a `Sample`, or a device list); ``checks``:
    the doctor's checks (objects or dicts). ``lang="zh"``: in Chinese, the doctor's
    evidence and hint in its check's own Chinese, else ``hint(english)`` (the report's
    translation of a hint; by default the catalogue's, `tui.i18n.hint_in`), else quoted.
    """
    checks = list(checks or ())
    listed = listed_in(devices).at_least(doctor_count(checks))
    return headline_of([facts_of(r) for r in runs], listed, view_of_checks(checks), lang=lang,
                       own=_own_chinese(checks) if lang == "zh" else None, translate=hint)


@dataclass(frozen=True)
class _Alarm:
    """What the headline says, before it is put in words."""

    who: list[str]          # the workloads that ran on the CPU unasked
    runs: int               # how many runs they are
    everyone: bool          # ... and they are every run of the report
    cards: str              # the listed accelerators, described
    elsewhere: list[tuple[str, str]]  # (workload, device) of the runs that did use a card
    doctor: str             # the doctor's evidence that torch sees nothing, or ""
    hint: str


def headline_of(facts: list[RunFacts], listed: Listed, view: TorchView, *, lang: str = "en",
                own: Mapping[str, str] | None = None, translate: Callable[[str], str] | None = None) -> str | None:
    on_cpu = [f for f in facts if f.on_cpu]
    if not on_cpu:
        return None
    for f in on_cpu:  # a run's own warning knows how many were listed when it ran
        alarm = f.alarm()
        if alarm is not None and isinstance(alarm.get("accelerators"), int):
            listed = listed.at_least(alarm["accelerators"])
    if listed.count == 0:
        return None  # a machine without accelerators: the CPU was all there was
    zh = lang == "zh"
    cards = listed.describe(lang)
    unasked = [f for f in on_cpu if not f.asked_for_cpu]
    if not unasked:
        return say("cpu_trap.as_asked", lang, cards=cards)
    name = _title if zh else str
    hint = view.hint if view.sees is False else ""
    hint = hint or next((str(a["hint"]) for f in unasked if (a := f.alarm()) is not None and a.get("hint")), "")
    said = _Alarm(who=list(dict.fromkeys(name(f.workload) for f in unasked)), runs=len(unasked),
                  everyone=len(unasked) == len(facts) and len(facts) > 1, cards=cards,
                  elsewhere=[(name(f.workload), f.device) for f in facts if f.device and not f.on_cpu],
                  doctor=view.evidence if view.sees is False and view.origin == "doctor" else "", hint=hint)
    if zh:
        own = own or {}
        doctor_hint = own.get("hint") if view.sees is False else None
        english = hint or mismatch_hint()
        return _warning(said, "zh", own.get("evidence"), doctor_hint or (translate or _chinese_hint)(english) or "")
    return _warning(said)


def _chinese_hint(english: str) -> str | None:
    return hint_in("zh", english)


def _warning(a: _Alarm, lang: str = "en", evidence: str | None = None, hint: str = "") -> str:
    """The headline; in Chinese the doctor's evidence and the hint in Chinese when given, else quoted."""
    zh = lang == "zh"
    who = say("cpu_trap.everyone", lang) if a.everyone else say("cpu_trap.and", lang).join(a.who)
    runs = joined((say("cpu_trap.ran_on", lang, workload=w, device=code(d) if zh else d)
                   for w, d in a.elsewhere), lang)
    elsewhere = say("cpu_trap.elsewhere", lang, runs=runs) if a.elsewhere else ""
    text = say("cpu_trap.warning_many" if a.runs > 1 else "cpu_trap.warning_one", lang, who=who, cards=a.cards,
               elsewhere=elsewhere)
    if a.doctor:
        text += say("cpu_trap.doctor", lang, evidence=(evidence or code(a.doctor)) if zh else a.doctor)
    hint = with_doctor(hint or code(a.hint or mismatch_hint()), lang) if zh else with_doctor(a.hint)
    return text + say("cpu_trap.hint", lang, hint=hint)


def _own_chinese(checks: list[Any]) -> dict[str, str]:
    """The doctor's torch.sees_device check's own Chinese ({"evidence", "hint"}...), when it carries it."""
    from tui.doctor import check  # as tui.cpu_trap.facts does: not needed to run a workload

    found = check.find_check(checks, "torch.sees_device")
    if found is None:
        return {}
    own = {key: check.own_words(found, key, "zh") for key in ("evidence", "hint")}
    return {key: text for key, text in own.items() if text}


def _title(workload: str) -> str:
    return registry.spec_for(workload).title("zh")
