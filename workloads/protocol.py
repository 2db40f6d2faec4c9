"""The event schema: the only contract between a workload child and the workbench.

A workload writes one JSON object per line on its stdout. Every object has an
``event`` key naming its type and a ``t`` key (wall-clock seconds since the
epoch). Both sides build and read events through this module, so the schema
lives in one place.

Reading is forgiving on purpose: a field this version does not know is kept in
``extra`` (a newer workload talking to an older workbench loses nothing), and a
line that is not a well-formed event raises :class:`MalformedLine`, which the
caller logs and skips. Well-formed includes the known fields' types (a step
whose loss is ``"high"`` is not a step: every reader after this one may then do
arithmetic on it) and a nesting depth of at most :data:`MAX_DEPTH` (the report
walks values recursively).

Nothing here imports torch or textual.
"""

from __future__ import annotations

import json
import math
import time
import types
import typing
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from workloads.catalogue import Message

SCHEMA_VERSION = 1

END_STATUSES = ("ok", "failed", "stopped")
# set by the runner in a child's environment to its own pid: the child ties its life to the runner's
# (workloads/child/parent.py), so a SIGKILLed workbench or `cardbench run` leaves no workload behind
PARENT_PID_ENV = "CARDBENCH_PARENT_PID"
RUN_DIR_ENV = "CARDBENCH_RUN_DIR"   # the run directory, set by the runner in every workload child's environment
# set (to the command's name) when `cardbench run` only checks a workload's arguments (workloads.child.harness)
CHECK_ARGS_ENV = "CARDBENCH_CHECK_ARGS"

# lists/objects inside one another: far beyond any real event, far below Python's recursion limit
MAX_DEPTH = 32


class MalformedLine(ValueError):
    """A line on the workload's stdout that is not a valid event."""


def _clean(value: Any) -> Any:
    """JSON has no NaN or infinity; a missing number is written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


@dataclass
class Event:
    """Base of every event. ``extra`` keeps fields this version does not know."""

    kind: ClassVar[str] = ""
    t: float = field(default_factory=time.time)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value is None and f.name not in self._always:
                continue
            out[f.name] = value
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return _clean(out)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    def describe(self) -> str:
        """One human-readable line for run.log."""
        return f"{self.kind}: {json.dumps(self.to_dict(), ensure_ascii=False)}"

    # fields written even when None, so readers can rely on the key
    _always: ClassVar[tuple[str, ...]] = ()


@dataclass
class Start(Event):
    kind: ClassVar[str] = "start"
    workload: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    device: str = ""
    versions: dict[str, Any] = field(default_factory=dict)
    schema: int = SCHEMA_VERSION

    def describe(self) -> str:
        versions = " ".join(f"{k}={v}" for k, v in self.versions.items())
        cfg = " ".join(f"{k}={_fmt(v)}" for k, v in self.config.items())
        return f"start {self.workload} on {self.device} ({versions}) config: {cfg}"


@dataclass
class Step(Event):
    """One training step or one generated token batch.

    ``step`` counts what ``counts`` names (steps unless it says ``"tokens"``),
    up to ``total_steps``, the number the run plans to end at (its cap); an
    epoch counts up to ``total_epochs``, the epoch the cap lets the run reach
    (not the epochs asked for). ``throughput`` is in ``unit`` (``images/s`` or
    ``tokens/s``), measured over the last ``throughput_window`` counted items
    (one, this step, when absent); ``step_s`` is the time of one counted item.
    ``data_wait_s`` is time spent waiting for input, ``compute_s`` time on the
    device; memory is the peak since the start of the run, in bytes.
    """

    kind: ClassVar[str] = "step"
    step: int = 0
    epoch: int | None = None
    loss: float | None = None
    throughput: float | None = None
    unit: str | None = None
    step_s: float | None = None
    data_wait_s: float | None = None
    compute_s: float | None = None
    memory_allocated_bytes: int | None = None
    memory_reserved_bytes: int | None = None
    total_steps: int | None = None
    total_epochs: int | None = None
    counts: str | None = None
    throughput_window: int | None = None

    @property
    def noun(self) -> str:
        """What one count is: "step", "token"."""
        return (self.counts or "steps").removesuffix("s")

    def describe(self) -> str:
        """The run.log line of the step, every figure named: 'step 5/6 | epoch 1/1 | ... 32.2 images/s this step'."""
        parts = [f"{self.noun} {self.step}" + (f"/{self.total_steps}" if self.total_steps else "")]
        if self.counts == "parts":  # sent as a part ends, while the workload's own log says which part started
            parts[0] += " done"
        if isinstance(self.extra.get("label"), str):  # the workload's own words for this step: a part, counts so far
            parts.append(self.extra["label"])
        if self.epoch is not None:
            parts.append(f"epoch {self.epoch}" + (f"/{self.total_epochs}" if self.total_epochs else ""))
        batch, batches = self.extra.get("batch"), self.extra.get("batches")
        if type(batch) is int and type(batches) is int:   # an epoch's bar: where the step is in its epoch
            parts.append(f"batch {batch}/{batches} of the epoch")
        if self.extra.get("warmup") is True:
            parts.append("warm-up")
        if self.loss is not None:
            parts.append(f"loss {self.loss:.4f}")
        if self.throughput is not None:
            told = self.extra.get("rate_as")
            unit = self.unit or "items/s"
            if isinstance(told, str) and told.endswith("written as seconds per item") and self.throughput > 0:
                # the log wrote s/it: shown as it wrote it, 10.0 s/it, not 0.1 it/s
                parts.append(f"{_rate_digits(1 / self.throughput)} s/{unit.removesuffix('/s')} ({told})")
            else:
                parts.append(f"{_rate_digits(self.throughput)} {unit} {self.rate_span('this', 'over the last')}")
        if self.step_s is not None:
            parts.append(f"{self.noun} {self.step_s * 1000:.1f} ms")
        if self.data_wait_s is not None:
            parts.append(f"data-wait {self.data_wait_s * 1000:.1f} ms")
        if self.memory_allocated_bytes is not None:
            parts.append(f"mem {self.memory_allocated_bytes / 2**20:.0f} MiB")
        return " | ".join(parts)

    def rate_span(self, one: str = "last", many: str = "last") -> str:
        """What ``throughput`` is measured over, in words: 'last step', 'last 16 tokens' (or 'this step'...)."""
        told = self.extra.get("rate_as")  # a rate a tool printed says itself what it is: "tqdm's smoothed rate"
        if isinstance(told, str) and told:
            return f"({told})"
        window = self.throughput_window
        if window is None or window == 1:
            return f"{one} {self.noun}"
        return f"{many} {window} {self.counts or 'steps'}"


@dataclass
class WorkloadWarning(Event):
    kind: ClassVar[str] = "warning"
    message: str = ""
    code: str | None = None

    def describe(self) -> str:
        return f"WARNING: {self.message}"


@dataclass
class Fallback(Event):
    """The workload changed how it runs after an error (e.g. AMP -> FP32)."""

    kind: ClassVar[str] = "fallback"
    error: str = ""
    action: str = ""
    layer: str | None = None
    op: str | None = None

    def describe(self) -> str:
        where = ""
        if self.layer or self.op:
            where = f" (layer {self.layer or '?'}, op {self.op or '?'})"
        return f"FALLBACK: {self.error}{where} -> {self.action}"


@dataclass
class Result(Event):
    kind: ClassVar[str] = "result"
    metrics: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        body = ", ".join(f"{k}={_fmt(v)}" for k, v in self.metrics.items())
        return f"RESULT: {body}"


@dataclass
class Error(Event):
    kind: ClassVar[str] = "error"
    message: str = ""
    hint: str | None = None
    hint_id: str | None = None   # the catalogue's id of the hint (absent in runs from before ids, and in free text)
    _always: ClassVar[tuple[str, ...]] = ("hint",)

    def __post_init__(self) -> None:
        # a hint of the catalogue travels as its English (what run.log and an old reader read) and its id
        if isinstance(self.hint, Message):
            self.hint, self.hint_id = self.hint.en, self.hint.id

    def describe(self) -> str:
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"ERROR: {self.message}{hint}"


@dataclass
class End(Event):
    kind: ClassVar[str] = "end"
    status: str = "ok"
    exit_code: int | None = None

    def describe(self) -> str:
        code = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        return f"end: {self.status}{code}"


# a result's list or table longer than this is counted, not printed: it would fill a terminal (the scan's
# failures with every module that calls them); events.jsonl keeps it whole
_NESTED_CHARS = 160


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, dict)) and len(str(value)) > _NESTED_CHARS:
        return f"<{len(value)} {'items' if isinstance(value, list) else 'entries'}, in events.jsonl>"
    return str(value)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (Start, Step, WorkloadWarning, Fallback, Result, Error, End)
}


def json_types(annotation: Any) -> tuple[type, ...]:
    """The JSON value types a field's annotation allows (``float`` and ``int`` both take any number)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return tuple(t for arg in typing.get_args(annotation) for t in json_types(arg))
    base = origin or annotation
    if base is type(None):
        return (type(None),)
    if base in (int, float):
        return (int, float)
    if base in (list, tuple):
        return (list, tuple)
    if base in (dict, str, bool):
        return (base,)
    return (object,)  # Any


def field_types(cls: type) -> dict[str, tuple[type, ...]]:
    """Field name -> the JSON types it may hold, for a dataclass with annotations."""
    hints = typing.get_type_hints(cls)
    return {f.name: json_types(hints[f.name]) for f in fields(cls)}


def fits(value: Any, allowed: tuple[type, ...]) -> bool:
    """Is ``value`` one of ``allowed``? True/false is not a number here, though Python's bool is an int."""
    if isinstance(value, bool):
        return bool in allowed or object in allowed
    return isinstance(value, allowed)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Are lists/objects nested more than ``limit`` levels? Walked without recursion, so any depth is safe."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, (list, tuple)) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return False


_FIELD_TYPES: dict[type[Event], dict[str, tuple[type, ...]]] = {
    cls: {name: allowed for name, allowed in field_types(cls).items() if name != "extra"}
    for cls in EVENT_TYPES.values()
}
# the scalar types json.loads gives that each field takes as they are: one set lookup per field, the rest
# (containers, to be checked for depth; anything else) goes the long way. A long run has millions of fields.
_SCALARS: dict[type[Event], dict[str, frozenset[type]]] = {
    cls: {name: frozenset(t for t in allowed if t in (int, float, str, type(None))) for name, allowed in known.items()}
    for cls, known in _FIELD_TYPES.items()
}


def _type_name(value: Any) -> str:
    return "null" if value is None else "a list" if isinstance(value, list) else \
        "an object" if isinstance(value, dict) else f"a {type(value).__name__}"


def from_dict(data: dict[str, Any]) -> Event:
    """Build an event from a decoded JSON object; raise MalformedLine if it is not one."""
    if not isinstance(data, dict):
        raise MalformedLine("event is not a JSON object")
    kind = data.get("event")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedLine(f"unknown event type {kind!r}")
    known, scalars = _FIELD_TYPES[cls], _SCALARS[cls]
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        if value.__class__ in scalars.get(key, ()):
            kwargs[key] = value
            continue
        if key == "event":
            continue
        if isinstance(value, (dict, list)) and too_deep(value, MAX_DEPTH - 1):
            raise MalformedLine(f"field {key!r} is nested more than {MAX_DEPTH} levels deep")
        allowed = known.get(key)
        if allowed is None:
            extra[key] = value
            continue
        if not fits(value, allowed):
            raise MalformedLine(f"field {key!r} of a {kind} event is {_type_name(value)}")
        kwargs[key] = value
    if "t" in kwargs and not math.isfinite(kwargs["t"]):
        raise MalformedLine("field 't' is not a finite number")
    if cls is End and kwargs.get("status") not in END_STATUSES:
        raise MalformedLine(f"end status {kwargs.get('status')!r} not one of {END_STATUSES}")
    try:
        return cls(**kwargs, extra=extra)
    except TypeError as exc:  # pragma: no cover - dataclass with all-default fields
        raise MalformedLine(str(exc)) from exc


def parse_line(line: str | bytes) -> Event:
    """Parse one stdout line into an event; raise MalformedLine if it is not one."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    text = line.strip()
    if not text:
        raise MalformedLine("empty line")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedLine(f"not JSON: {exc.msg}") from None
    except RecursionError:  # "[[[[..." thousands deep: the decoder gives up before any depth check could
        raise MalformedLine("not JSON: nested too deep to decode") from None
    return from_dict(data)


def _rate_digits(value: float) -> str:
    """One decimal, but three significant digits below 1: 0.05 it/s must not read 0.1 (or 0.0)."""
    return f"{value:.3g}" if 0 < abs(value) < 1 else f"{value:.1f}"
