"""Workloads run on the accelerator, each in a child process (`python -m workloads.<name>`).

This module is the registry: one line per workload, each naming the workload's
torch-free ``spec``. Importing it imports nothing heavy; torch is imported by the
workload modules themselves, inside the child.

    from workloads import registry
    spec = registry.get("resnet50")      # a WorkloadSpec, or None
    for spec in registry.specs(): ...    # in the order the suite runs them
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from workloads.command.spec import SPEC as _COMMAND
from workloads.dataio.spec import SPEC as _DATAIO
from workloads.finetune.spec import SPEC as _FINETUNE
from workloads.generate.spec import SPEC as _GENERATE
from workloads.llm.spec import SPEC as _LLM
from workloads.microbench.spec import SPEC as _MICROBENCH
from workloads.opscan.spec import SPEC as _OPSCAN
from workloads.resnet50.spec import SPEC as _RESNET50
from workloads.serve.spec import SPEC as _SERVE
from workloads.soak.spec import SPEC as _SOAK
from workloads.spec import WorkloadSpec, unknown


class Registry:
    """The workloads this build offers, by name, in suite order."""

    def __init__(self, specs: tuple[WorkloadSpec, ...]):
        self._specs: dict[str, WorkloadSpec] = {s.name: s for s in specs}

    def specs(self) -> list[WorkloadSpec]:
        return list(self._specs.values())

    def names(self) -> list[str]:
        return list(self._specs)

    def get(self, name: str) -> WorkloadSpec | None:
        return self._specs.get(name)

    def spec_for(self, name: str) -> WorkloadSpec:
        """The registered spec, or a plain one for a run of a workload this build does not have."""
        return self._specs.get(name) or unknown(name)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    @contextlib.contextmanager
    def registered(self, spec: WorkloadSpec) -> Iterator[WorkloadSpec]:
        """Add ``spec`` for the duration of a ``with`` block (tests plug in a workload this way)."""
        before = dict(self._specs)
        self._specs[spec.name] = spec
        try:
            yield spec
        finally:
            self._specs = before


registry = Registry((
    _RESNET50,
    _GENERATE,
    _OPSCAN,
    _MICROBENCH,
    _COMMAND,
    _SOAK,
    _DATAIO,
    _FINETUNE,
    _SERVE,
    _LLM,
))
