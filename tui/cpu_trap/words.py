"""The CPU trap's words: the run's warning, the warning before a run, the banner's lines, the report's headline.

Built from the facts in `tui.cpu_trap.facts`; UI-free. Every message says what ran where, what was not
used, why (torch sees none of the listed cards) and what to do (the hint, and `cardbench doctor`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tui.cpu_trap.facts import (Listed, RunFacts, TorchView, doctor_count, facts_of, listed_in, mismatch_hint,
                                requested_device, view_of_checks)

DOCTOR_HINT = "`cardbench doctor` says what torch sees and why"


def with_doctor(hint: str) -> str:
    hint = (hint or mismatch_hint()).rstrip(". ")
    return f"{hint}; {DOCTOR_HINT}" if DOCTOR_HINT not in hint else hint


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
    return f"the {count} listed card" + (" is" if count == 1 else "s are")


def short_hint(hint: str) -> str:
    """A hint without the pointer to `cardbench doctor` (a screen that has a doctor key says it its own way)."""
    return (hint or mismatch_hint()).replace(f"; {DOCTOR_HINT}", "")


def alarm_lines(warning: Any) -> tuple[str, str]:
    """A CPU-trap warning event as two banner lines: what happened (fits 80 columns), then why and the hint."""
    data = warning.to_dict() if hasattr(warning, "to_dict") else dict(warning or {})
    what, _, hint = str(data.get("message") or "").partition(" Hint: ")
    count = data.get("accelerators")
    if isinstance(count, int) and data.get("workload"):
        what = f"CPU ONLY: {data['workload']} runs on the CPU; {_cards(count)} NOT used"
    return what, f"torch sees none of them. hint: {short_hint(str(data.get('hint') or hint))}"


def before_lines(workload: str, args: Iterable[Any] | None, count: int, hint: str) -> tuple[str, str]:
    """The warning before a run as two banner lines: what would happen (fits 80 columns), then the hint."""
    cards = f"the {count} listed card" + ("" if count == 1 else "s")
    return f"torch sees NONE of {cards}: {outcome(workload, args, '')}", f"hint: {short_hint(hint)}"


def headline(runs: Sequence[Any], devices: Any = None, checks: Iterable[Any] | None = None) -> str | None:
    """The report's first line when work ran on the CPU while accelerators are listed; else None.

    ``runs``: the report's `WorkloadSummary`s (or `RunRecord`s); ``devices``: the
    export's telemetry snapshot (its dict, a `Sample`, or a device list); ``checks``:
    the doctor's checks (objects or dicts).
    """
    checks = list(checks or ())
    return headline_of([facts_of(r) for r in runs], listed_in(devices).at_least(doctor_count(checks)),
                     view_of_checks(checks))


def headline_of(facts: list[RunFacts], listed: Listed, view: TorchView) -> str | None:
    on_cpu = [f for f in facts if f.on_cpu]
    if not on_cpu:
        return None
    for f in on_cpu:  # a run's own warning knows how many were listed when it ran
        alarm = f.alarm()
        if alarm is not None and isinstance(alarm.get("accelerators"), int):
            listed = listed.at_least(alarm["accelerators"])
    if listed.count == 0:
        return None  # a machine without accelerators: the CPU was all there was
    unasked = [f for f in on_cpu if not f.asked_for_cpu]
    if not unasked:
        return (f"Note: the workloads ran on the CPU as asked (`--device cpu`); {listed.describe()} "
                "were not used, and their readings are not the runs' data.")
    names = list(dict.fromkeys(f.workload for f in unasked))
    who = "the workloads" if len(unasked) == len(facts) and len(facts) > 1 else " and ".join(names)
    elsewhere = [f"{f.workload} ran on {f.device}" for f in facts if f.device and not f.on_cpu]
    hint = view.hint if view.sees is False else ""
    hint = hint or next((str(a["hint"]) for f in unasked if (a := f.alarm()) is not None and a.get("hint")), "")
    text = (f"WARNING: {who} ran on the CPU, not on {listed.describe()}: torch sees none of them, so "
            f"{'their' if len(unasked) > 1 else 'its'} figures are CPU figures and the cards' readings are not "
            "the runs' data")
    if elsewhere:
        text += f" ({'; '.join(elsewhere)})"
    text += "."
    if view.sees is False and view.evidence and view.origin == "doctor":
        text += f" The doctor: {view.evidence}."
    return f"{text} Hint: {with_doctor(hint)}."

