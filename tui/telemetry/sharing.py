"""Whether a run had its host and its card to itself, judged from the samples taken while it ran. UI-free.

A ResNet-50 run read 6.4 images/s once and 55-56 later on the same machine because another job was running, and
neither the report nor `compare` (which called one run "0.12x" of the other) said so (issue 36 item 2). So:

- the host was shared when other processes than cardbench's used more than `OTHER_CPU_CORES_MAX` cores on average
  over the run's samples (`tui.telemetry.other_cpu`); the load average is said beside it, as the host's own word;
- the card was shared when a sample listed a process on the run's card that is not cardbench's (NVML's running
  processes, the management tools' process lists: `tui.telemetry.processes` names the owners).

A shared run is recorded as a ``warning`` event (code `SHARED`, its figures in the event's fields), so the log,
the report and `compare` read the one judgement from the run itself. A run that timed nothing (a plan: `cardbench
fit`, ``--fit-only``: no step, and no rate or duration in its result) has no figure to read as noise: none is
recorded for it, however busy the host.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Mapping

from tui.i18n import say
from workloads import protocol, registry
from workloads.facts.formatting import format_bytes, format_number
from workloads.rundir.sample_fields import (CPU_COUNT, DEVICES, HOST, INDEX, LOAD1, OTHER_CPU_CORES, PROCESSES)

SHARED = "shared_host_or_card"   # the warning's code
# half a core: on the 2-core hosts the CPU suite runs on that is a quarter of the machine, and a job that takes it
# moves a CPU-bound figure by more than its own step-to-step spread; the monitoring a rented host runs (an agent,
# sshd, the container runtime) stays well under a tenth of a core
OTHER_CPU_CORES_MAX = 0.5
# a host whose own background is heavier (a shared CI runner, a desktop) raises it, in cores: the test suite's
# parallel workers are other processes to every run it starts, and a run's figures there are not what it tests
CORES_ENV = "CARDBENCH_SHARED_CORES"


def other_cores_max() -> float:
    """The threshold in force: $CARDBENCH_SHARED_CORES when it is a number of cores, else OTHER_CPU_CORES_MAX."""
    try:
        value = float(os.environ.get(CORES_ENV) or "nan")
    except ValueError:
        value = math.nan
    return value if math.isfinite(value) and value >= 0 else OTHER_CPU_CORES_MAX
MAX_LISTED = 5   # the other processes a card's line names; the rest are counted


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


@dataclass(frozen=True)
class Sharing:
    """What the run shared: the means of its samples' host readings, and the other processes seen on its card."""

    other_cpu_cores: float | None = None
    load1: float | None = None
    cpu_count: int | None = None
    card_processes: tuple[str, ...] = ()   # "pid 4242 python, 2.0 GiB", as the tool listed them

    @property
    def host_shared(self) -> bool:
        return self.other_cpu_cores is not None and self.other_cpu_cores > other_cores_max()

    @property
    def shared(self) -> bool:
        return self.host_shared or bool(self.card_processes)

    def words(self, lang: str = "en") -> str:
        """What it shared, with the threshold beside the figure."""
        parts = []
        if self.host_shared:
            parts.append(say("report.shared_host", lang, cores=format_number(self.other_cpu_cores),
                             limit=format_number(other_cores_max()), load=format_number(self.load1),
                             count=format_number(self.cpu_count)))
        if self.card_processes:
            listed = list(self.card_processes[:MAX_LISTED])
            if len(self.card_processes) > MAX_LISTED:
                listed.append(say("report.shared_more", lang, n=len(self.card_processes) - MAX_LISTED))
            parts.append(say("report.shared_card", lang, processes=say("report.list_sep", lang).join(listed)))
        return say("report.list_sep", lang).join(parts)

    def mark(self, lang: str = "en") -> str:
        """The short form a table's cell carries beside the figure; the whole sentence is under Problems."""
        parts = []
        if self.host_shared:
            parts.append(say("report.shared_host_short", lang, cores=format_number(self.other_cpu_cores)))
        if self.card_processes:
            parts.append(say("report.shared_card_short", lang, n=len(self.card_processes)))
        return say("report.shared_mark", lang, what=say("report.list_sep", lang).join(parts))

    def warning(self) -> protocol.WorkloadWarning:
        """The event the run records: the sentence in English, the figures in its fields (`of_event` reads them)."""
        return protocol.WorkloadWarning(
            message=say("report.shared_run", "en", what=self.words("en")), code=SHARED,
            extra={OTHER_CPU_CORES: self.other_cpu_cores, LOAD1: self.load1, CPU_COUNT: self.cpu_count,
                   PROCESSES: list(self.card_processes)})

    @classmethod
    def of_event(cls, event: Mapping[str, Any]) -> Sharing | None:
        """The sharing a warning event's dict records (a report's, a bundle's: checked, never trusted); None for
        any other event."""
        if event.get("code") != SHARED:
            return None
        count = _number(event.get(CPU_COUNT))
        listed = event.get(PROCESSES)
        processes = tuple(str(p)[:200] for p in listed[:100]) if isinstance(listed, list) else ()
        return cls(_number(event.get(OTHER_CPU_CORES)), _number(event.get(LOAD1)),
                   int(count) if count is not None else None, processes)


def _process_line(process: Any) -> tuple[str, str] | None:
    """(who, who with what it held) of a card's process as the sample lists it (``[pid, name, used bytes, owner]``),
    unless it is cardbench's own: "pid 4242 python (another container's process), 2.0 GiB"."""
    if not isinstance(process, (list, tuple)) or not 3 <= len(process) <= 4:
        return None
    pid, name, used, owner = (*process, None)[:4]
    if isinstance(owner, str) and owner.startswith("cardbench "):
        return None
    words = " ".join(str(x)[:80] for x in (f"pid {pid}" if pid is not None else None, name) if x)
    if owner:
        words += f" ({str(owner)[:80]})"
    return words, words + (f", {format_bytes(used)}" if _number(used) is not None else "")


class SharingWatch:
    """Fed the open run's samples (``see``); ``verdict()`` is what the run shared, None when it had both to itself."""

    def __init__(self) -> None:
        self.start()

    def start(self, workload: str | None = None) -> None:
        """A new run of ``workload`` (its result is read by that workload's record)."""
        self._workload = workload
        self._other: list[float] = []
        self._load: list[float] = []
        self._count: int | None = None
        self._processes: dict[str, str] = {}   # who -> who with what it held when last seen, in order seen
        self._timed = False   # the run timed something: a step, or a result with a rate or a duration

    def see_event(self, event: protocol.Event) -> None:
        """One of the open run's events: a step, or a result with a timed figure, gives sharing something to spoil."""
        if isinstance(event, protocol.Step) or (isinstance(event, protocol.Result) and self._workload is not None
                                                and registry.spec_for(self._workload).result.timed(event.metrics)):
            self._timed = True

    def see(self, sample: Mapping[str, Any], card: int | None) -> None:
        """One sample's dict (telemetry.jsonl's line); ``card``: the run's card as the tools number it."""
        host = sample.get(HOST)
        if isinstance(host, Mapping):
            for value, into in ((host.get(OTHER_CPU_CORES), self._other), (host.get(LOAD1), self._load)):
                if _number(value) is not None:
                    into.append(float(value))
            count = _number(host.get(CPU_COUNT))
            self._count = int(count) if count is not None else self._count
        devices = sample.get(DEVICES)
        if card is None or not isinstance(devices, list):
            return
        for device in devices:
            if isinstance(device, Mapping) and device.get(INDEX) == card:
                for seen in map(_process_line, device.get(PROCESSES) or ()):
                    if seen and (seen[0] in self._processes or len(self._processes) < 100):
                        self._processes[seen[0]] = seen[1]

    def verdict(self) -> Sharing | None:
        """What the run shared; None when it had both to itself or timed nothing."""
        if not self._timed:
            return None
        mean = (lambda xs: round(sum(xs) / len(xs), 2) if xs else None)
        found = Sharing(mean(self._other), mean(self._load), self._count, tuple(self._processes.values()))
        return found if found.shared else None
