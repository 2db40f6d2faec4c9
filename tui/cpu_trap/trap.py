"""The CPU trap itself: follows a session's evidence and runs, and says once when work landed on the CPU.

`CpuTrap` is what the run session holds (`session.cpu_trap`); `check_before_run` is the one-shot check a
command line makes before a run. UI-free: the facts are `tui.cpu_trap.facts`, the words `tui.cpu_trap.words`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from tui.cpu_trap.facts import (CODE, Listed, RunFacts, TorchView, asked_for_cpu, doctor_count, listed_in,
                                requested_device, view_of_checks, view_of_probe)
from tui.cpu_trap.words import before_lines, before_message, headline_of, run_message, with_doctor
from workloads import protocol


class CpuTrap:
    """Follows what is listed, what torch sees and where each run went; says when work landed on the CPU.

    ``see_sample`` may be called from the sampler's thread; the rest from the caller's.
    """

    def __init__(self) -> None:
        self.listed = Listed()                 # the newest snapshot's
        self.doctor_listed = 0                 # the doctor's count (CLI, NVML, PCI bus)
        self.view = TorchView()                # what torch sees, the newest evidence
        self.runs: list[RunFacts] = []         # every run started, oldest first
        self._pending = False                  # the open run is on the CPU; nothing listed yet
        self._run_said = False                 # a run's start told what torch sees
        self._probe_seen: Any = None           # the probe whose answer is in ``view``

    # evidence -----------------------------------------------------------------------------------
    def see_sample(self, sample: Any) -> None:
        listed = listed_in(sample)
        self.listed = listed
        if listed.seen_by_torch and self.view.sees is None and not self._run_said:
            self.view = TorchView(True, f"the torch probe reports {listed.seen_by_torch} device(s)", origin="sample")

    def see_checks(self, checks: Iterable[Any] | None) -> None:
        """The doctor's checks: newer than anything else seen, so they win."""
        checks = list(checks or ())
        self.doctor_listed = doctor_count(checks)
        view = view_of_checks(checks)
        if view.sees is not None:
            self.view = view

    def see_probe(self, probe: Any) -> None:
        """The probe answers once; a run's start, being newer, outranks it (so does a later doctor)."""
        if probe is None or probe is self._probe_seen or self._run_said:
            return
        view = view_of_probe(probe)
        if view.sees is not None:
            self.view = view
            self._probe_seen = probe

    def listed_now(self) -> Listed:
        return self.listed.at_least(self.doctor_listed)

    # before a run ------------------------------------------------------------------------------
    def before_run(self, workload: str, args: Iterable[Any] | None) -> str | None:
        """The warning to show before starting this run, or None (torch sees a card, or nothing is listed)."""
        listed = self.listed_now()
        if self.view.sees is not False or listed.count == 0 or asked_for_cpu(args):
            return None
        return before_message(workload, args, listed, self.view)

    def before_run_lines(self, workload: str, args: Iterable[Any] | None) -> tuple[str, str] | None:
        """`before_run` as two banner lines: what would happen (fits 80 columns), then the hint."""
        if self.before_run(workload, args) is None:
            return None
        return before_lines(workload, args, self.listed_now().count, self.view.hint)

    # a run ---------------------------------------------------------------------------------------
    def start_run(self, workload: str, args: Iterable[Any] | None) -> None:
        self.runs.append(RunFacts(workload, None, [str(a) for a in args or ()]))
        self._pending = False

    def see_event(self, event: protocol.Event) -> protocol.WorkloadWarning | None:
        """The open run's event; returns the CPU-trap warning to record, once per run, as soon as it is known."""
        if not self.runs:
            return None
        run = self.runs[-1]
        if isinstance(event, protocol.Start):
            run.device = event.device or None
            if run.device and not run.asked_for_cpu:
                if run.on_cpu:
                    self.view = TorchView(False, f"{run.workload} (device auto) started on {run.device}",
                                          self.view.hint if self.view.sees is False else "", "run")
                    self._pending = self._run_said = True
                elif requested_device(run.args) == "":
                    self.view = TorchView(True, f"{run.workload} started on {run.device}", origin="run")
                    self._run_said = True
        if not self._pending:
            return None
        listed = self.listed_now()
        if listed.count == 0:
            return None
        self._pending = False
        hint = with_doctor(self.view.hint)
        warning = protocol.WorkloadWarning(
            t=time.time(), message=run_message(run.workload, run.device or "cpu", listed, hint), code=CODE,
            extra={"workload": run.workload, "device": run.device, "accelerators": listed.count, "hint": hint})
        run.warnings.append(warning.to_dict())
        return warning

    def verdict(self) -> str | None:
        """This session's runs as the report's headline puts it; None unless work landed on the CPU unasked."""
        line = headline_of(self.runs, self.listed_now(), self.view)
        return line if line is not None and line.startswith("WARNING") else None


PROBE_WAIT_S = 30.0   # the longest `check_before_run` waits for torch's answer


def check_before_run(workload: str, args: Iterable[Any] | None, *, timeout: float = PROBE_WAIT_S,
                     collector: Any = None, trap: CpuTrap | None = None) -> str | None:
    """For a command line (`cardbench run`): would this run land on the CPU beside listed cards? Blocks.

    One telemetry read (the management CLI, NVML, the PCI bus); only when it lists
    a card is torch asked (the probe child: a torch import, a few seconds, at most
    ``timeout``). Returns the warning, or None (asked for the CPU, nothing listed,
    torch sees a card, or no answer in time). A ``collector`` passed in stays open
    (the run's sampler goes on with it and its torch answer); ``trap`` learns what was seen.
    """
    if asked_for_cpu(args):
        return None
    owned = collector is None
    if owned:
        from tui.telemetry.collect import Collector

        collector = Collector(torch_probe=True)
    trap = trap or CpuTrap()
    try:
        first = collector.collect()
        trap.see_sample(first)
        if trap.listed.count == 0 or trap.listed.seen_by_torch:
            return None
        if collector.torch is not None and collector.torch.wait(timeout):
            trap.see_probe(collector.torch)
    finally:
        if owned:
            collector.close()
    return trap.before_run(workload, args)
