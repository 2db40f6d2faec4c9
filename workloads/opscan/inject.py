"""Failures injected per op and dtype, so every status can be produced and tested on a CPU.

``CARDBENCH_INJECT_OP_FAILURE="aten.convolution:bf16=notimpl,aten.addmm:fp16=wrong"``: for each
``OP:DTYPE=KIND``, replaying OP (an overload name, or the op without its overload) in DTYPE
does KIND instead of running right:

- ``notimpl``: raises NotImplementedError naming the op and dtype, as a missing kernel does;
- ``wrong``: runs, then its floating outputs are perturbed (NMSE about 0.25);
- ``fallback``: warns that the op runs on the CPU, as a backend's fallback does;
- ``error``: raises a RuntimeError like a device error;
- ``crash``: aborts the process (SIGABRT), as a device fault does;
- ``hang``: sleeps until the supervisor's per-op timeout kills it.

Torch-free: the option check parses the variable before anything is imported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

ENV = "CARDBENCH_INJECT_OP_FAILURE"
KINDS = ("notimpl", "wrong", "fallback", "error", "crash", "hang")


class BadInjection(ValueError):
    pass


@dataclass(frozen=True)
class Injections:
    by_case: dict[tuple[str, str], str]

    def kind(self, op: str, dtype: str) -> str | None:
        """The failure to inject for ``op`` (aten.addmm.default) in ``dtype``, if any."""
        packet = op.rsplit(".", 1)[0] if op.count(".") >= 2 else op
        return self.by_case.get((op, dtype)) or self.by_case.get((packet, dtype))

    def __bool__(self) -> bool:
        return bool(self.by_case)


def parse(text: str | None = None) -> Injections:
    """The injections in ``text`` (default: the environment); :class:`BadInjection` names a bad entry."""
    from workloads.opscan.statuses import DTYPES

    text = os.environ.get(ENV, "") if text is None else text
    by_case: dict[tuple[str, str], str] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        target, _, kind = part.partition("=")
        op, _, dtype = target.rpartition(":")
        if not op or dtype not in DTYPES or kind not in KINDS:
            raise BadInjection(f"{ENV}: {part!r} is not OP:DTYPE=KIND (DTYPE one of {', '.join(DTYPES)}, "
                               f"KIND one of {', '.join(KINDS)})")
        by_case[(op, dtype)] = kind
    return Injections(by_case)
