"""When a CPU-only run in the headless suite is stopped: at its deadline, unless it has not yet measured the steps a
figure needs (`workloads.facts.warmup.MIN_MEASURED_STEPS`); then as soon as it has, and at the latest at its last
call (`tui.headless.plan.Job.last_call`).

The suite's CPU budget is shared, not cut in equal slices regardless: a run cut after one measured step gave the
report a headline of 1.771 images/s where the same settings give 56 (issue 36). A workload whose steps carry no rate
(the op scan counts cases) measures its figure its own way and is stopped at its deadline as before.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

from workloads import protocol
from workloads.facts.warmup import measured_enough, split_warmup
from workloads.spec import WorkloadSpec


class Deadline:
    """Calls ``stop(short)`` once: at ``deadline`` when the run has its minimum (``short`` False), else when it gets
    it, or at ``last_call`` still short (``short`` True). Monotonic times; ``see`` each step event."""

    def __init__(self, spec: WorkloadSpec, deadline: float, last_call: float | None,
                 stop: Callable[[bool], None]) -> None:
        self._spec = spec
        self._deadline = deadline
        self._last_call = max(deadline, last_call if last_call is not None else deadline)
        self._stop = stop
        self._steps = 0
        self._rates: list[protocol.Step] = []
        self._handle: asyncio.TimerHandle | None = None
        self.stopped = False
        self.waited = False   # the run went past its deadline to measure its minimum

    def short(self) -> bool:
        """Not yet the steps after warm-up a figure needs, where the steps carry the rate (or none came yet)."""
        if self._steps and not self._rates:
            return False
        _skip, kept = split_warmup(self._rates, lambda s: s.extra.get("warmup") is True,
                                   emits_warmup=self._spec.warmup_emits_steps)
        return not measured_enough(len(kept))

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        self._handle = loop.call_later(max(0.0, self._deadline - time.monotonic()), self._at_deadline, loop)

    def see(self, step: protocol.Step) -> None:
        self._steps += 1
        if step.throughput is not None:
            self._rates.append(step)
        if self.waited and not self.stopped and not self.short():
            self._fire(False)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()

    def _at_deadline(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.stopped:
            return
        if not self.short():
            self._fire(False)
        elif not self.waited and self._last_call > time.monotonic():
            self.waited = True
            self._handle = loop.call_later(self._last_call - time.monotonic(), self._at_deadline, loop)
        else:
            self._fire(self.short())

    def _fire(self, short: bool) -> None:
        self.stopped = True
        self.cancel()
        self._stop(short)
