"""The CPU fallback check: torch.profiler on for a few steps after the warm-up, then off, and each op that ran on
the CPU while the model lives on the card said as a warning (issue 38).

A step loop makes one :class:`FallbackWatch` and calls :meth:`~FallbackWatch.before` and
:meth:`~FallbackWatch.after` around every step; the watch does nothing outside its steps. Its steps are the
:data:`WATCHED_STEPS` right after the loop's warm-up: the loop counts them as warm-up too, so the profiler's cost
never reaches a figure (bench/cpu_fallback_overhead.py measures that cost). After the last one the profiler is
stopped, its trace read by :func:`workloads.child.cpu_fallback_trace.classify`, each fallen-back op sent as a
``cpu_fallback`` warning (the run log, the report's problems and compare read it) and :meth:`~FallbackWatch.figures`
gives the result's figures. By default it watches only where the device is not the CPU (on the CPU every op is a
CPU op); ``--cpu-fallback-check on`` forces it (the tests do), ``off`` leaves it out
(`workloads.child.cpu_fallback_option`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Any, Callable

import torch

from workloads.child.cpu_fallback_option import WATCHED_STEPS, wanted
from workloads.child.cpu_fallback_said import figures, say
from workloads.child.cpu_fallback_trace import STEP_MARK, Findings, classify, events_of
from workloads.child.device import synchronize
from workloads.child.harness import Emitter, log
from workloads.errors import first_line
from workloads.facts.warmup import MIN_MEASURED_STEPS


def _activities(device: torch.device) -> list[Any]:
    """The host's ops, and the device's own activities where torch.profiler has them (its copies, with bytes)."""
    acts = [torch.profiler.ProfilerActivity.CPU]
    name = {"cuda": "CUDA", "xpu": "XPU", "hpu": "HPU"}.get(device.type, "")
    own = getattr(torch.profiler.ProfilerActivity, name, None)
    if own is not None and own in torch.profiler.supported_activities():
        acts.append(own)
    return acts


class FallbackWatch:
    """Profiles steps ``after + 1`` to ``after + steps`` (1-based) of a loop, then names what fell back.

    ``planned``: the loop's steps, where it plans a number; the watch then leaves the figures the
    :data:`~workloads.facts.warmup.MIN_MEASURED_STEPS` they need after it, watching fewer steps or none."""

    def __init__(self, device: torch.device, emitter: Emitter | None, mode: str = "auto", after: int = 0,
                 steps: int = WATCHED_STEPS, planned: int | None = None):
        self.device, self.emitter = device, emitter
        if planned is not None:
            steps = min(steps, planned - after - MIN_MEASURED_STEPS)
        self.active = wanted(mode, device.type) and steps > 0
        if wanted(mode, device.type) and not self.active and emitter is not None:
            log(f"CPU fallback check: not run: {planned} steps leave none to profile after the {after} of warm-up and "
                f"the {MIN_MEASURED_STEPS} the figures need (--steps {after + WATCHED_STEPS + MIN_MEASURED_STEPS} "
                "or more runs it)")
        self.first, self.last = after + 1, after + steps
        self.findings: Findings | None = None
        self.watched = 0
        self._profile: Any = None
        self._mark: Any = None

    def watches(self, step: int) -> bool:
        """Whether step ``step`` is one the profiler watches (the loop counts it as warm-up)."""
        return self.active and self.first <= step <= self.last

    def before(self, step: int) -> None:
        if not self.watches(step):
            return
        if self._profile is None:
            try:
                # no shapes: they cost about as much again per recorded op (ResNet-18's step 1.04-1.10 with them,
                # 1.01-1.04 without, bench/cpu_fallback_overhead.py); the copies' bytes then come from the device's
                # own copy records where it keeps them (CUDA, XPU), and are unknown elsewhere
                self._profile = torch.profiler.profile(activities=_activities(self.device), record_shapes=False)
                self._profile.start()
            except Exception as exc:  # noqa: BLE001 - a profiler that cannot start costs the check, never the run
                self._give_up(exc)
                return
        self._mark = torch.profiler.record_function(f"{STEP_MARK}{step}")
        self._mark.__enter__()

    def after(self, step: int) -> bool:
        """Close step ``step``'s span (the loop has synchronised the device); after the last, stop and classify.
        True when it did: that time is no step's, and the loop starts its next step's clock after it."""
        if self._mark is None:
            return False
        self._mark.__exit__(None, None, None)
        self._mark = None
        self.watched += 1
        if step < self.last:
            return False
        self.finish()
        return True

    def finish(self) -> None:
        """Stop the profiler (also where the run ends inside the watched steps) and say what fell back."""
        if self._profile is None:
            return
        if self._mark is not None:
            self._mark.__exit__(None, None, None)
            self._mark = None
        profile, self._profile = self._profile, None
        try:
            profile.stop()
            self.findings = classify(events_of(_trace_of(profile)))
        except Exception as exc:  # noqa: BLE001 - as above: the steps measured stand without it
            self._give_up(exc)
            return
        self._say(self.findings)

    def _give_up(self, exc: BaseException) -> None:
        self.active, self._profile = False, None
        if self.emitter is not None:
            log(f"CPU fallback check: not run: torch.profiler failed: {first_line(exc, typed=True)}")

    def _say(self, found: Findings) -> None:
        """A warning per fallen-back op and the check's line in the log, by the process that speaks (rank 0)."""
        if self.emitter is not None:
            say(self.emitter, str(self.device), found, self.watched)

    def figures(self) -> dict[str, Any]:
        """The result's figures of the check; none where it did not run (the CPU, or ``off``)."""
        return figures(self.findings, self.watched)


def one_call(call: Callable[[], Any], device: torch.device) -> Findings:
    """``call`` run once under torch.profiler, classified: what one op's replay sends to the CPU (opscan runs each
    recorded op so, where the backend falls back without a warning, or warned once already: MPS's is said once).
    With shapes: one call's cost is no step's, and they give the copies' bytes on any device."""
    with torch.profiler.profile(activities=_activities(device), record_shapes=True) as profile:
        call()
        synchronize(device)
    return classify(events_of(_trace_of(profile)))


def _trace_of(profile: Any) -> dict[str, Any]:
    """The profile as its Chrome trace (what the recorded fixtures are), read back from a file of our own."""
    fd, path = tempfile.mkstemp(prefix="cardbench-fallback-", suffix=".json")
    os.close(fd)
    try:
        profile.export_chrome_trace(path)
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
