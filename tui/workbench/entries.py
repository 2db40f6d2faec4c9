"""What the launcher offers, UI-free: the registry's workloads, then the commands it starts like one from their fields.

`cardbench ready` runs several workloads (`tui.ready`), so it is no registered workload: the headless suite, the
soak and compare never see it. Its entry (`tui.workbench.ready_entry.SPEC`) has the shape a workload's spec has (a title, a
key label, the fields), so the launcher's bar, forms, keys and run state read every entry through `spec_for`; what
starts it is the workbench's (`tui.workbench.app.ready_run`).
"""

from __future__ import annotations

from typing import Sequence

from tui.workbench import ready_entry
from workloads import registry
from workloads.spec import WorkloadSpec

COMMANDS: dict[str, WorkloadSpec] = {ready_entry.NAME: ready_entry.SPEC}


def names(workloads: Sequence[str] | None = None) -> list[str]:
    """The launcher's entries: ``workloads`` as given (a test's), else every registered one and then the commands."""
    return list(workloads) if workloads else [*registry.names(), *COMMANDS]


def spec_for(name: str) -> WorkloadSpec:
    """The entry's spec: a command's, else the registry's (a plain one for a workload this build does not have)."""
    return COMMANDS.get(name) or registry.spec_for(name)


def is_command(name: str) -> bool:
    """Whether the entry is a command the workbench starts itself (not a workload run through the session)."""
    return name in COMMANDS
