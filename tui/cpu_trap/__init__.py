"""Work that ran on the CPU while accelerators are listed: found, said once and loudly, UI-free.

The trial's worst case: the management CLI lists the rented cards, but the image's
PyTorch cannot use them, so a workload started with ``--device auto`` (or no
``--device``) quietly trains on the CPU. Everything downstream must say so: the
launcher and the suite before the run, a ``warning`` event in the run (so its
events.jsonl, run.log, state line and the report's problems carry it), the first
line of the report, and the headless export's exit status.

    trap = CpuTrap()                      # the run session holds one: `session.cpu_trap`
    trap.see_sample(sample)               # what NVML / the CLI list, and which of them torch reports
    trap.see_checks(checks)               # the doctor: torch.sees_device, the device counts, its hint
    trap.see_probe(probe)                 # the telemetry's torch probe, once it has answered
    trap.before_run("resnet50", args)     # the warning before a run, or None
    trap.start_run("resnet50", args)
    warning = trap.see_event(event)       # the run's warning event (once), or None: the session records it
    headline(summaries, env_devices, checks)   # the report's first line, or None (lang="zh": in Chinese)
    device_runs(records)                  # the runs whose telemetry is device data (not the CPU runs)

A run the user asked to put on the CPU (``--device cpu``) is no alarm: the cards'
readings are still not its data, and the report says it ran on the CPU as asked.

The facts (what is listed, what torch sees, a run's facts) are in `tui.cpu_trap.facts`, the words (the
messages, the banner's lines, the report's headline) in `tui.cpu_trap.words`, the trap in `tui.cpu_trap.trap`;
every public name is importable from here.
"""

from __future__ import annotations

from tui.cpu_trap.facts import (CODE, Listed, RunFacts, TorchView, asked_for_cpu, cpu_only_hint, device_runs,
                                doctor_count, facts_of, is_cpu, listed_in, mismatch_hint, requested_device,
                                view_of_checks, view_of_probe)
from tui.cpu_trap.trap import PROBE_WAIT_S, CpuTrap, check_before_run
from tui.cpu_trap.words import (DOCTOR_HINT, alarm_lines, before_lines, before_message, headline,
                                run_message, short_hint)

__all__ = ["CODE", "DOCTOR_HINT", "PROBE_WAIT_S", "CpuTrap", "Listed", "RunFacts", "TorchView", "alarm_lines",
           "asked_for_cpu", "before_lines", "before_message", "check_before_run", "cpu_only_hint",
           "device_runs", "doctor_count", "facts_of", "headline", "is_cpu", "listed_in", "mismatch_hint",
           "requested_device", "run_message", "short_hint", "view_of_checks", "view_of_probe"]
