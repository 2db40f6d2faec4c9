"""What a suite's handing-over runs give the jobs after them, and the report's note on it, from the specs alone.

A workload whose spec has a ``hand_over`` hook runs first in the suite (``plan.suite_names``);
once its run ends, each later job's arguments go through the hook, which may extend them
(the operator scan adds ``--ops-from <its run dir>``) and returns what the report says
that job was given. This module names no workload: the hook decides which jobs take
anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tui.report.i18n import note
from workloads import registry
from workloads.catalogue import Message, message
from workloads.runner import Outcome
from workloads.spec import Text


def in_sentence(title: str) -> str:
    """A title inside a sentence: 'Operator coverage scan' -> 'operator coverage scan'; 'ResNet-50' stays."""
    first = title.split(" ", 1)[0]
    return title[:1].lower() + title[1:] if first[1:].islower() or len(first) == 1 else title


def why_not(workload: str, outcome: Outcome | None) -> Message:
    """Why a handing-over run gives nothing: its run could not be created, was stopped, or ended not ok."""
    title = _InSentence(registry.spec_for(workload).title)
    if outcome is None:
        return message("report.hand_over.not_created", title=title)
    if outcome.status == "stopped":
        return message("report.hand_over.stopped", title=title)
    why = f": {outcome.error_line}" if outcome.error else ""
    return message("report.hand_over.ended", title=title, status=outcome.status, why=why)


@dataclass(frozen=True)
class _InSentence:
    """A workload's title inside a sentence: English lowers its first word ('the operator coverage scan'), Chinese
    has no case to lower."""

    title: Callable[[str], str]

    def __call__(self, lang: str = "en") -> str:
        return self.title(lang) if lang == "zh" else in_sentence(self.title(lang))


class Handovers:
    """The handing-over runs that have ended in this suite, in order: (workload, run dir or None, why not)."""

    def __init__(self) -> None:
        self._ended: list[tuple[str, Path | None, Text | Message]] = []

    def finished(self, workload: str, ended: tuple[Path, Outcome] | None) -> None:
        """Record a job's end when its workload hands over (``ended``: its run dir and outcome, None: not created)."""
        if registry.spec_for(workload).hand_over is None:
            return
        run_dir, outcome = ended or (None, None)
        if run_dir is not None and outcome is not None and outcome.status == "ok":
            self._ended.append((workload, run_dir, Text("")))
        else:
            self._ended.append((workload, None, why_not(workload, outcome)))

    def prepare(self, workload: str, args: list[str]) -> list[Message]:
        """Pass a job's ``args`` through each ended run's hook; the report's note for each that gave it something."""
        spec = registry.spec_for(workload)
        notes = []
        for giver, run_dir, why in self._ended:
            hook = registry.spec_for(giver).hand_over
            said = hook(run_dir, why, workload, args) if hook is not None else None
            if said is not None:
                notes.append(note("note_workload", name=Text(workload, spec.title("zh")), note=said))
        return notes
