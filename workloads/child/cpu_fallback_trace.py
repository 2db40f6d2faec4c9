"""Which aten ops left the card for the CPU, and the host<->device copies per step, read from a torch.profiler trace.

Torch-free and pure (a trace's events in, :class:`Findings` out), so it is tested on recorded traces in
milliseconds; :mod:`workloads.child.cpu_fallback` records the trace around a few steps and calls :func:`classify`.

How a fallback shows in a trace. A backend that lacks an op registers PyTorch's boxed CPU fallback,
``at::native::cpu_fallback`` (aten/src/ATen/native/CPUFallback.cpp): torch_npu, torch_musa and other PrivateUse1
backends do, and MPS does under ``PYTORCH_ENABLE_MPS_FALLBACK=1``. It (1) copies every tensor argument to the CPU
with ``at::_to_cpu``, (2) redispatches the op to its CPU kernel, (3) copies mutated arguments back with
``at::_copy_from_and_resize`` and (4) moves each output back with ``tensor.to(device)``. The profiler records the op
at the dispatcher's entry, so the trace has ``aten::<op>`` with ``aten::_to_cpu`` under it (each tensor an
``aten::to`` -> ``aten::_to_copy`` -> ``aten::copy_``), the CPU kernel's own calls, then ``aten::to`` or
``aten::_copy_from_and_resize`` for the way back. The op that fell back is therefore the nearest ``aten::`` op above
an ``aten::_to_cpu``; its inclusive time (copies in, CPU work, copies out) is what the fallback costs the step.

Copies: where the trace has the device's own copy activities (Kineto's ``gpu_memcpy`` events on CUDA/ROCm/XPU,
``Memcpy HtoD``/``DtoH`` with their ``bytes``), every host<->device copy of the step is counted from them. Where it
has none (a vendor device whose copies torch.profiler's CPU view cannot tell from a copy on the card), only the
copies the fallen-back ops make are counted, from their ``aten::to``/``_copy_from_and_resize`` events and the
shapes and dtypes the trace records (``record_shapes``); :attr:`Findings.copies_from_device` says which.

Steps are the trace's ``ProfilerStep#N`` spans (torch.profiler's own, under a schedule; the watch writes the same).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

STEP_MARK = "ProfilerStep#"
TO_CPU = "aten::_to_cpu"
# the events one cross-device copy is recorded as, outermost first: only the outermost of a chain is counted
COPY_OPS = frozenset({"aten::to", "aten::_to_copy", "aten::copy_", "aten::_copy_from_and_resize",
                      "aten::_copy_from"})
_HOST_CATS = frozenset({"cpu_op", "user_annotation"})
_DEVICE_COPY_CAT = "gpu_memcpy"
# bytes per element of the "Input type" names torch.profiler writes (c10's type names)
_ITEMSIZE = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4, "short int": 2,
             "signed char": 1, "unsigned char": 1, "bool": 1, "c10::complex<float>": 8, "c10::complex<double>": 16,
             "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1}


@dataclass(frozen=True)
class TraceEvent:
    """One complete ("X") event of a Chrome trace: times in microseconds, on one thread."""

    name: str
    cat: str
    ts: float
    dur: float
    tid: Any = 0
    args: Mapping[str, Any] | None = None

    @property
    def end(self) -> float:
        return self.ts + self.dur


def events_of(trace: Mapping[str, Any]) -> list[TraceEvent]:
    """The complete events of a Chrome trace (``torch.profiler``'s ``export_chrome_trace``), bad ones skipped."""
    out = []
    for e in trace.get("traceEvents") or ():
        if not isinstance(e, Mapping) or e.get("ph") != "X":
            continue
        try:
            ts, dur = float(e["ts"]), float(e.get("dur", 0.0))
        except (KeyError, TypeError, ValueError):
            continue
        if math.isfinite(ts) and math.isfinite(dur):
            args = e.get("args")
            out.append(TraceEvent(str(e.get("name", "")), str(e.get("cat", "")), ts, dur, e.get("tid", 0),
                                  args if isinstance(args, Mapping) else None))
    return out


@dataclass(frozen=True)
class FallenBackOp:
    """One op that ran on the CPU while its inputs lived on the card, averaged over the watched steps."""

    op: str
    calls_per_step: float
    share_of_step: float | None      # its inclusive time (copies in and out, the CPU work) over the steps' time
    ms_per_step: float
    copies_per_step: float           # the copies it made, to the CPU and back
    copy_bytes_per_step: int | None  # None where a copied tensor's dtype is not one the trace names a size for

    def row(self) -> dict[str, Any]:
        return {"op": self.op, "calls_per_step": self.calls_per_step, "share_of_step": self.share_of_step,
                "ms_per_step": self.ms_per_step, "copies_per_step": self.copies_per_step,
                "copy_bytes_per_step": self.copy_bytes_per_step}


@dataclass(frozen=True)
class Findings:
    steps: int                           # the steps the trace holds
    step_ms: float | None                # their mean time, as the trace spans them
    ops: tuple[FallenBackOp, ...]        # the fallen-back ops, most costly first
    copies_per_step: float
    copy_bytes_per_step: int | None
    copies_from_device: bool             # counted from the device's copy activities (all of them), not the ops'
    host_events_per_step: float = 0.0    # the host events the profiler recorded a step: what its cost grows with


@dataclass
class _Tally:
    calls: int = 0
    us: float = 0.0
    copies: int = 0
    nbytes: int | None = 0


def classify(events: Sequence[TraceEvent]) -> Findings:
    """The ops that fell back to the CPU within the trace's steps, and its host<->device copies per step."""
    windows = _step_windows(events)
    steps = max(len(windows), 1)
    span_us = sum(end - start for start, end in windows)
    host = sorted((e for e in events if e.cat in _HOST_CATS and not e.name.startswith(STEP_MARK)),
                  key=lambda e: (str(e.tid), e.ts, -e.dur))
    parent = _parents(host)
    tallies: dict[str, _Tally] = {}
    fallback_copies, fallback_bytes = 0, 0
    copies_of = _copies_by_op(host, parent)
    for i, op in _fallen_back(host, parent):
        if not _inside(op, windows):
            continue
        tally = tallies.setdefault(op.name, _Tally())
        tally.calls += 1
        tally.us += op.dur
        for copy in copies_of.get(i, ()):
            tally.copies += 1
            fallback_copies += 1
            size = _bytes(copy)
            tally.nbytes = None if size is None or tally.nbytes is None else tally.nbytes + size
            fallback_bytes = None if size is None or fallback_bytes is None else fallback_bytes + size
    ops = tuple(sorted((_op(name, t, steps, span_us) for name, t in tallies.items()),
                       key=lambda o: (-o.ms_per_step, o.op)))
    device_copies = [e for e in events if e.cat == _DEVICE_COPY_CAT and _crosses(e.name) and _inside(e, windows)]
    if device_copies:
        nbytes: int | None = sum(_int(e.args.get("bytes")) if e.args else 0 for e in device_copies)
        copies = len(device_copies)
    else:
        nbytes, copies = fallback_bytes, fallback_copies
    recorded = sum(1 for e in host if _inside(e, windows)) / steps
    return Findings(len(windows), span_us / 1000 / len(windows) if windows else None, ops, copies / steps,
                    _per_step(nbytes, steps), bool(device_copies), recorded)


def _op(name: str, t: _Tally, steps: int, span_us: float) -> FallenBackOp:
    return FallenBackOp(name, t.calls / steps, t.us / span_us if span_us > 0 else None, t.us / 1000 / steps,
                        t.copies / steps, _per_step(t.nbytes, steps))


def _per_step(nbytes: int | None, steps: int) -> int | None:
    return None if nbytes is None else round(nbytes / steps)


def _step_windows(events: Iterable[TraceEvent]) -> list[tuple[float, float]]:
    """(start, end) of each step; the whole trace as one step where it marks none."""
    marked = sorted((e.ts, e.end) for e in events if e.name.startswith(STEP_MARK))
    if marked:
        return marked
    host = [e for e in events if e.cat in _HOST_CATS]
    return [(min(e.ts for e in host), max(e.end for e in host))] if host else []


def _inside(event: TraceEvent, windows: Sequence[tuple[float, float]]) -> bool:
    return any(start <= event.ts < end for start, end in windows)


def _parents(host: Sequence[TraceEvent]) -> list[int | None]:
    """Each event's enclosing event on its thread (an index into ``host``, sorted by thread, start, longest first)."""
    parent: list[int | None] = [None] * len(host)
    stack: list[int] = []
    for i, e in enumerate(host):
        while stack and (host[stack[-1]].tid != e.tid or host[stack[-1]].end <= e.ts):
            stack.pop()
        parent[i] = stack[-1] if stack else None
        stack.append(i)
    return parent


def _aten_above(i: int, host: Sequence[TraceEvent], parent: Sequence[int | None]) -> int | None:
    """The nearest ``aten::`` event above event ``i``, past wrappers that are not ops (a Python dispatch mode)."""
    j = parent[i]
    while j is not None and not host[j].name.startswith("aten::"):
        j = parent[j]
    return j


def _fallen_back(host: Sequence[TraceEvent], parent: Sequence[int | None]) -> list[tuple[int, TraceEvent]]:
    """The ops an ``aten::_to_cpu`` ran under (once each: an op with several tensor lists calls it more than once)."""
    found: dict[int, TraceEvent] = {}
    for i, e in enumerate(host):
        if e.name != TO_CPU:
            continue
        j = _aten_above(i, host, parent)
        while j is not None and host[j].name in COPY_OPS:   # a copy's own _to_cpu: the op is above the copy
            j = _aten_above(j, host, parent)
        if j is not None:
            found[j] = host[j]
    return sorted(found.items())


def _copies_by_op(host: Sequence[TraceEvent], parent: Sequence[int | None]) -> dict[int, list[TraceEvent]]:
    """The cross-device copies a fallback may have made, by the op they ran under: the outermost copy events right
    under an op (the way back) or under its ``aten::_to_cpu`` (the way in). One pass over the trace."""
    out: dict[int, list[TraceEvent]] = {}
    for i, e in enumerate(host):
        if e.name not in COPY_OPS:
            continue
        above = _aten_above(i, host, parent)
        if above is None or host[above].name in COPY_OPS:
            continue
        owner = _aten_above(above, host, parent) if host[above].name == TO_CPU else above
        if owner is not None:
            out.setdefault(owner, []).append(e)
    return out


def _bytes(copy: TraceEvent) -> int | None:
    """The bytes of the copy's source tensor: its first input's dims times its dtype's size."""
    args = copy.args or {}
    dims, types = args.get("Input Dims"), args.get("Input type")
    if not isinstance(dims, list) or not isinstance(types, list) or not dims or not types:
        return None
    size = _ITEMSIZE.get(str(types[0]))
    if size is None or not isinstance(dims[0], list):
        return None
    return math.prod(_int(d) for d in dims[0]) * size


def _crosses(name: str) -> bool:
    """A device copy activity between host and device ("Memcpy HtoD (Pageable -> Device)"), not on the device."""
    return "HtoD" in name or "DtoH" in name


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
