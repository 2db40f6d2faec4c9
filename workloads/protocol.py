"""The event schema: the only contract between a workload child and the workbench.

A workload writes one JSON object per line on its stdout. Every object has an
``event`` key naming its type and a ``t`` key (wall-clock seconds since the
epoch). Both sides build and read events through this module, so the schema
lives in one place.

Reading is forgiving on purpose: a field this version does not know is kept in
``extra`` (a newer workload talking to an older workbench loses nothing), and a
line that is not a well-formed event raises :class:`MalformedLine`, which the
caller logs and skips.

Nothing here imports torch or textual.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

SCHEMA_VERSION = 1

END_STATUSES = ("ok", "failed", "stopped")


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
        cfg = " ".join(f"{k}={v}" for k, v in self.config.items())
        return f"start {self.workload} on {self.device} ({versions}) config: {cfg}"


@dataclass
class Step(Event):
    """One training step or one generated token batch.

    ``throughput`` is in ``unit`` (``images/s`` or ``tokens/s``); ``data_wait_s``
    is time spent waiting for input, ``compute_s`` time on the device; memory is
    the peak since the start of the run, in bytes.
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

    def describe(self) -> str:
        parts = [f"step {self.step}"]
        if self.epoch is not None:
            parts.append(f"epoch {self.epoch}")
        if self.loss is not None:
            parts.append(f"loss {self.loss:.4f}")
        if self.throughput is not None:
            parts.append(f"{self.throughput:.1f} {self.unit or 'items/s'}")
        if self.step_s is not None:
            parts.append(f"step {self.step_s * 1000:.1f} ms")
        if self.data_wait_s is not None:
            parts.append(f"data-wait {self.data_wait_s * 1000:.1f} ms")
        if self.memory_allocated_bytes is not None:
            parts.append(f"mem {self.memory_allocated_bytes / 2**20:.0f} MiB")
        return " | ".join(parts)


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
    _always: ClassVar[tuple[str, ...]] = ("hint",)

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


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (Start, Step, WorkloadWarning, Fallback, Result, Error, End)
}


def from_dict(data: dict[str, Any]) -> Event:
    """Build an event from a decoded JSON object; raise MalformedLine if it is not one."""
    if not isinstance(data, dict):
        raise MalformedLine("event is not a JSON object")
    kind = data.get("event")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedLine(f"unknown event type {kind!r}")
    known = {f.name for f in fields(cls)} - {"extra"}
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        if key == "event":
            continue
        if key in known:
            kwargs[key] = value
        else:
            extra[key] = value
    if "t" in kwargs and not isinstance(kwargs["t"], (int, float)):
        raise MalformedLine("field 't' is not a number")
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
    return from_dict(data)
