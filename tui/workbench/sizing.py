"""How big a launcher run is for the device it will run on, UI-free: CPU-sized defaults, and the estimate a long
run is asked about before it starts.

Where torch sees no accelerator the launcher offers what the headless suite runs there (each spec's
``SuiteArgs.cpu_quick``), not the accelerator's defaults: ResNet-50 at batch 64, 224 px and 200 steps is seconds on
a card and more than an hour on two cores. Whatever the fields hold, a run its workload estimates above
`LONG_RUN_S` is asked about first (`tui.workbench.launch.start_question`), where a stray value is.
"""

from __future__ import annotations

from typing import Sequence

from tui.i18n import say
from tui.workbench import entries
from workloads.cpus import usable_cpus
from workloads.facts.formatting import format_duration
from workloads.spec import flag_value

LONG_RUN_S = 600.0   # ten minutes: above it, the launcher says the estimate and asks before starting


def device_is_cpu(device: str, torch_sees: bool | None) -> bool | None:
    """Will a run land on the CPU? The device field when it names one, else torch's word (None: not known yet)."""
    device = (device or "").strip().lower()
    if device and device != "auto":
        return device.startswith("cpu")
    return None if torch_sees is None else not torch_sees


def cpu_values(workload: str) -> dict[str, str]:
    """The launcher's values the headless suite gives the workload on the CPU (its ``cpu_quick`` arguments), for
    the fields that have a flag there; the rest keep their defaults."""
    spec = entries.spec_for(workload)
    args = list(spec.suite.cpu_quick) if spec.suite is not None else []
    values: dict[str, str] = {}
    for param in spec.params:
        if param.kind == "switch":
            if param.flag in args:
                values[param.key] = "on"
            continue
        value = flag_value(args, param.flag)
        if value is not None:
            values[param.key] = value
    return values


def long_run(workload: str, args: Sequence[str], on_cpu: bool | None) -> str | None:
    """One line when the workload estimates this run above `LONG_RUN_S` ('... about 1 h 27 min on the CPU (2
    cores) ...'); None when it is shorter, or when nothing can tell (the device or the workload's rate unknown)."""
    estimate = entries.spec_for(workload).estimate_s
    seconds = estimate(list(args), on_cpu) if estimate is not None and on_cpu is not None else None
    if seconds is None or seconds <= LONG_RUN_S:
        return None
    said = {"duration": format_duration(seconds), "minutes": f"{LONG_RUN_S / 60:g}"}
    if on_cpu:
        return say("workbench.launch.long_run_cpu", cores=usable_cpus(), **said)
    return say("workbench.launch.long_run", **said)
