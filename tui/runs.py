"""The run store: one directory per workload run, append-only, rebuilt from disk.

    <runs dir>/<run id>/
        config.json       what was asked for (workload, arguments, start time), and under "redact"
                          the salted digests of the secrets the arguments hold (never the values)
        events.jsonl      every protocol event, appended and flushed as it arrives
        run.log           the human-readable log: event lines and the workload's stderr
        telemetry.jsonl   device/host samples taken while the run was active

The runs dir is ``--runs-dir``, else ``$CARDBENCH_RUNS_DIR``, else ``./cardbench-runs``.
Nothing is held only in memory: :func:`load_run` rebuilds everything from the
files, so a crash, a closed SSH session or a killed workbench loses nothing that
was already reported.

A run directory that stops taking writes mid-run (disk full, a filesystem gone
read-only, a file made immutable or unwritable) never stops the run: the first
failed write becomes the run's :class:`StoreFault` and nothing more is written
to it (a record with gaps in the middle would read as whole), so the caller can
say once which directory, why, and since when the run's progress is not on disk.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from tui import run_segments
from tui.formatting import utc
from tui.run_segments import SegmentedFile, dropped_note, read_text, segment_paths
from tui.report.redact import RECORD_KEY, record_for_run
from workloads import protocol

ENV_VAR = "CARDBENCH_RUNS_DIR"
DEFAULT_DIR = "cardbench-runs"


class RunStoreError(Exception):
    """The runs dir cannot be used (not writable, not a directory), or a run cannot be read at all.

    The message is one line for the user.
    """


def runs_root(override: str | os.PathLike[str] | None = None) -> Path:
    return Path(override or os.environ.get(ENV_VAR) or DEFAULT_DIR)


@dataclass(frozen=True)
class StoreFault:
    """A run directory stopped taking writes: which, why, and the last moment of the run on disk."""

    path: Path           # the run directory
    file: str            # the file whose write failed first
    cause: str           # the system's words: "No space left on device", "Read-only file system"...
    errno: int | None
    since: float         # time of the last write that reached disk (the run's creation if none did)

    def line(self) -> str:
        """One line for the user."""
        return (f"run dir {self.path} could not be written ({self.file}: {self.cause}); "
                f"the run's progress after {utc(self.since)} is not on disk")


class Run:
    """An open run directory that events, log lines and samples are appended to.

    A write that fails does not raise: it becomes :attr:`fault` and every later
    write is skipped (counted in :attr:`lost_events`), so the run goes on.
    """

    def __init__(self, path: Path, created: float | None = None):
        self.path = path
        self.id = path.name
        self.fault: StoreFault | None = None
        self.lost_events = 0     # events that arrived after the fault, not on disk
        self._last_written = time.time() if created is None else created
        # line-buffered appends: each write reaches the OS before the next event arrives. events.jsonl is the
        # run and is never cut; the log and the telemetry are rotated and capped (tui.run_segments)
        self._events = open(path / "events.jsonl", "a", encoding="utf-8", buffering=1)
        self._log = SegmentedFile(path / "run.log", run_segments.LOG_SEGMENT_BYTES, run_segments.LOG_KEEP_BYTES,
                                  opener=open)
        self._telemetry: SegmentedFile | None = None

    def _write(self, handle: Any, text: str) -> bool:
        """Append and flush; False (the fault noted) when the directory no longer takes it."""
        if self.fault is not None:
            return False
        try:
            handle.write(text)
            handle.flush()
        except OSError as exc:
            self._fail(Path(handle.name).name, exc)
            return False
        self._last_written = time.time()
        return True

    def _fail(self, file: str, exc: OSError) -> None:
        if self.fault is None:
            self.fault = StoreFault(self.path, file, exc.strerror or str(exc), exc.errno, self._last_written)

    def append(self, event: protocol.Event) -> None:
        if not self._write(self._events, event.to_json() + "\n"):
            self.lost_events += 1
            return
        self.log(event.describe(), t=event.t)

    def log(self, line: str, t: float | None = None) -> None:
        self._write(self._log, f"[{utc(t or time.time())}] {line}\n")  # the zone in every file a report carries

    def append_telemetry(self, sample: dict[str, Any]) -> None:
        if self.fault is not None:
            return
        if self._telemetry is None:
            try:
                self._telemetry = SegmentedFile(self.path / "telemetry.jsonl", run_segments.TELEMETRY_SEGMENT_BYTES,
                                                run_segments.TELEMETRY_KEEP_BYTES, opener=open,
                                                thin_every=run_segments.THIN_EVERY)
            except OSError as exc:
                self._fail("telemetry.jsonl", exc)
                return
        self._write(self._telemetry, json.dumps(sample, separators=(",", ":")) + "\n")

    def close(self) -> None:
        for handle in (self._events, self._log, self._telemetry):
            if handle is not None and not handle.closed:
                try:
                    handle.close()  # flushes what a failed write left in the buffer: it may fail again
                except OSError as exc:
                    self._fail(Path(handle.name).name, exc)

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RunStore:
    """Creates and lists run directories under one root."""

    def __init__(self, root: str | os.PathLike[str] | None = None):
        self.root = runs_root(root)

    def create(self, workload: str, args: list[str], **config: Any) -> Run:
        t = time.time()
        run_id = f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime(t))}-{workload}-{secrets.token_hex(2)}"
        path = self.root / run_id
        data = {"workload": workload, "args": list(args), "created": t, **config}
        # the secrets of this environment the arguments hold, hashed: an export made later, from a shell
        # without the variable, still redacts them (tui.report.redact.record_for_run)
        recorded = record_for_run(data)
        if recorded is not None:
            data[RECORD_KEY] = recorded
        made = False
        try:
            path.mkdir(parents=True, exist_ok=False)
            made = True
            with open(path / "config.json", "w", encoding="utf-8") as handle:
                handle.write(json.dumps(data, indent=2) + "\n")
            return Run(path, created=t)
        except OSError as exc:
            if made:  # a run that could not be created is no run: no empty directory left to puzzle over
                shutil.rmtree(path, ignore_errors=True)
            raise RunStoreError(f"cannot create a run in {self.root}: {exc.strerror or exc}") from None

    def check(self) -> Path:
        """Create the runs dir if needed and prove it takes a file now, before any work; RunStoreError if not."""
        root = self.root
        try:
            if root.exists() and not root.is_dir():
                raise RunStoreError(f"cannot use {root} as the runs dir: it exists and is not a directory")
            root.mkdir(parents=True, exist_ok=True)
            probe = root / f".cardbench-write-test-{os.getpid()}"
            try:
                probe.write_bytes(b"ok")
            finally:
                probe.unlink(missing_ok=True)
        except OSError as exc:
            raise RunStoreError(f"cannot use {root} as the runs dir: {exc.strerror or exc}") from None
        return root

    def list(self) -> list[Path]:
        """Run directories, oldest first."""
        if not self.root.is_dir():
            return []
        return sorted((p for p in self.root.iterdir() if (p / "events.jsonl").exists()), key=lambda p: p.name)


@dataclass
class RunRecord:
    """A run rebuilt from its directory.

    ``skipped_lines`` / ``skipped_telemetry_lines``: lines of events.jsonl /
    telemetry.jsonl that were not a well-formed event / sample and were left out.
    ``problems``: one line each for what else was wrong with the files (a
    config.json that is not an object...), so the report can say so.
    """

    path: Path
    config: dict[str, Any]
    events: list[protocol.Event]
    skipped_lines: int = 0
    telemetry: list[dict[str, Any]] = field(default_factory=list)
    skipped_telemetry_lines: int = 0
    problems: list[str] = field(default_factory=list)
    # the log's text when it is not run.log's (a redacted copy of the run, tui.report.redact.Redactor.record)
    log: str | None = field(default=None, repr=False, compare=False)
    # of() per kind, built once: the report asks for the start event once per step row, and a long
    # run has hundreds of thousands of events (a rescan per call made the export quadratic)
    _of: dict[type, list[Any]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _of_events: list[protocol.Event] | None = field(default=None, init=False, repr=False, compare=False)
    _of_count: int = field(default=-1, init=False, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def workload(self) -> str:
        start = self.start
        return (start.workload if start else "") or self.config.get("workload", "")

    def of(self, kind: type[protocol.Event]) -> list[Any]:
        """The events of this kind, in order. The list is shared between calls: do not change it."""
        if self._of_events is not self.events or self._of_count != len(self.events):
            # events replaced or appended to since: start over
            self._of, self._of_events, self._of_count = {}, self.events, len(self.events)
        found = self._of.get(kind)
        if found is None:
            found = self._of[kind] = [e for e in self.events if isinstance(e, kind)]
        return found

    @property
    def start(self) -> protocol.Start | None:
        starts = self.of(protocol.Start)
        return starts[0] if starts else None

    @property
    def steps(self) -> list[protocol.Step]:
        return self.of(protocol.Step)

    @property
    def result(self) -> protocol.Result | None:
        results = self.of(protocol.Result)
        return results[-1] if results else None

    @property
    def end(self) -> protocol.End | None:
        ends = self.of(protocol.End)
        return ends[-1] if ends else None

    @property
    def status(self) -> str:
        """ok / failed / stopped, or 'incomplete' when the run never reported its end."""
        end = self.end
        return end.status if end else "incomplete"

    @property
    def log_text(self) -> str:
        """run.log with its rotated segments before it, or "" when there is none or it cannot be read (load_run
        notes that as a problem)."""
        if self.log is not None:
            return self.log
        parts = []
        for part in [*segment_paths(self.path / "run.log"), self.path / "run.log"]:  # rotated ones first
            try:
                parts.append(read_text(part))
            except OSError:
                continue
        return "".join(parts)


class _Unreadable(Exception):
    """A JSON-lines file that cannot be read (a directory, no permission, an I/O error)."""


def read_rotated_telemetry(run_dir: Path, problems: list[str]) -> list[Any]:
    """The decoded lines of telemetry.jsonl's rotated segments (tui.run_segments), oldest first; a segment that
    cannot be read is a problem, and the others are still read."""
    out: list[Any] = []
    for segment in segment_paths(run_dir / "telemetry.jsonl"):
        try:
            out.extend(_read_jsonl(segment))
        except _Unreadable as why:
            problems.append(f"{segment.name} cannot be read ({why}); the run's telemetry has a gap there")
    return out


def _read_jsonl(path: Path) -> list[Any]:
    """The decoded lines of a JSON-lines file (gunzipped: a segment's .gz), blank lines left out; a line that
    does not decode gives None.

    Raises _Unreadable when the file cannot be read; a missing file has no lines.
    """
    try:
        # read whole and split: a quarter faster than line by line, and a long run has 100,000s of lines
        text = read_text(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise _Unreadable(exc.strerror or str(exc)) from None
    out: list[Any] = []
    loads = json.loads
    for line in text.split("\n"):  # the text layer turned "\r\n" and "\r" into "\n", as iterating does
        if not line or line.isspace():
            continue
        try:
            out.append(loads(line))
        except (ValueError, RecursionError):
            # cut short by a crash, or not JSON, or nested too deep for the decoder
            out.append(None)
    return out


# config.json keys the workbench and the report read, and the types they must have to be used
_CONFIG_TYPES: dict[str, tuple[type, ...]] = {"workload": (str,), "args": (list,), "created": (int, float)}
_CONFIG_WANTED = {"workload": "a string", "args": "a list", "created": "a number"}


def read_config(path: Path, problems: list[str]) -> dict[str, Any]:
    """config.json as a dict; whatever is wrong with it becomes a problem and an empty (or partial) config."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        problems.append("config.json is missing")
        return {}
    except OSError as exc:
        problems.append(f"config.json cannot be read ({exc.strerror or exc}); treated as empty")
        return {}
    try:
        config = json.loads(text)
    except (ValueError, RecursionError):
        problems.append("config.json is not valid JSON; treated as empty")
        return {}
    if not isinstance(config, dict):
        problems.append(f"config.json holds {_json_kind(config)}, not an object; treated as empty")
        return {}
    if protocol.too_deep(config):
        problems.append(f"config.json is nested more than {protocol.MAX_DEPTH} levels deep; treated as empty")
        return {}
    for key, allowed in _CONFIG_TYPES.items():
        if key in config and not (protocol.fits(config[key], allowed)
                                  and (key != "created" or math.isfinite(config[key]))):
            problems.append(f"config.json: {key!r} is {_json_kind(config[key])}, not {_CONFIG_WANTED[key]}; ignored")
            del config[key]
    return config


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN or infinite"
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value), "a number")


def _telemetry_types() -> tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]:
    from tui.telemetry.sample import DeviceSample, HostSample

    return protocol.field_types(DeviceSample), protocol.field_types(HostSample)


_DEVICE_TYPES, _HOST_TYPES = _telemetry_types()
_SCALAR_TYPES = (int, float, str, type(None))
# per field, the scalar types json.loads gives that it takes: one set lookup per field in the common case
_DEVICE_SCALARS, _HOST_SCALARS = ({name: frozenset(t for t in allowed if t in _SCALAR_TYPES)
                                   for name, allowed in types.items()} for types in (_DEVICE_TYPES, _HOST_TYPES))
# list fields and what their items must be
_ITEMS: dict[str, tuple[type, ...]] = {"throttle_reasons": (str,), "per_core_pct": (int, float, type(None))}


def _object_fits(data: Any, types: dict[str, tuple[type, ...]], scalars: dict[str, frozenset[type]],
                 depth: int) -> bool:
    """A host or device object: known fields of their types, unknown ones not nested too deep."""
    if not isinstance(data, dict):
        return False
    for key, value in data.items():
        if value.__class__ in scalars.get(key, ()):
            continue
        allowed = types.get(key)
        if allowed is None:  # a field this version does not know: anything not too deep
            if isinstance(value, (dict, list)) and protocol.too_deep(value, protocol.MAX_DEPTH - depth):
                return False
            continue
        if value is None:
            continue
        if not protocol.fits(value, allowed):
            return False
        if key == "processes":
            # [pid, name, used bytes]
            if not all(isinstance(p, list) and len(p) == 3 and not any(isinstance(v, (dict, list)) for v in p)
                       for p in value):
                return False
        elif isinstance(value, list) and not all(protocol.fits(v, _ITEMS.get(key, _SCALAR_TYPES)) for v in value):
            return False
    return True


def telemetry_sample_ok(data: Any) -> bool:
    """Is a decoded telemetry.jsonl line a sample the report and the plots can use as it is?

    ``t`` a finite number; ``host`` an object and ``devices`` a list of objects (or
    absent), with the fields `tui.telemetry.sample` knows of the types it gives
    them; ``errors`` and ``sources`` lists of strings; fields this version does not
    know nested no deeper than protocol.MAX_DEPTH in all.
    """
    if not isinstance(data, dict):
        return False
    t = data.get("t")
    if not protocol.fits(t, (int, float)) or not math.isfinite(t):
        return False
    for key, value in data.items():
        if key == "t" or value is None:
            continue
        if key == "host":
            if not _object_fits(value, _HOST_TYPES, _HOST_SCALARS, 2):
                return False
        elif key == "devices":
            if not (isinstance(value, list)
                    and all(_object_fits(d, _DEVICE_TYPES, _DEVICE_SCALARS, 3) for d in value)):
                return False
        elif key in ("errors", "sources"):
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                return False
        elif isinstance(value, (dict, list)) and protocol.too_deep(value, protocol.MAX_DEPTH - 1):
            return False
    return True


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Building a long run's events allocates millions of objects and none is in a cycle; the cyclic
    collector would walk the growing heap again and again (a fifth of the load time), for nothing."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load_run(path: str | os.PathLike[str]) -> RunRecord:
    """Rebuild a run from its directory.

    A line that is not a well-formed event or sample (torn by a crash, not JSON,
    a field of the wrong type) is skipped and counted; a config.json that is not
    an object is read as empty and noted in ``problems``. Raises
    :class:`RunStoreError` (one line) only when the run cannot be read at all:
    no such directory, or an events.jsonl that cannot be read.
    """
    with _no_cyclic_gc():
        return _load_run(Path(path))


def check_run(path: str | os.PathLike[str]) -> None:
    """Raise :class:`RunStoreError` (one line) where :func:`load_run` would, without reading the run.

    For a caller that checks its arguments before the real work: a long run takes seconds to load.
    """
    path = Path(path)
    events_path = path / "events.jsonl"
    try:
        if not path.is_dir():
            raise RunStoreError(f"{path} is not a cardbench run directory ("
                                f"{'not a directory' if path.exists() else 'no such directory'})")
        if not events_path.exists():
            if not (path / "config.json").exists():
                raise RunStoreError(f"{path} is not a cardbench run directory (no events.jsonl)")
            return  # created, nothing reported yet
        with open(events_path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        where = events_path if events_path.exists() else path
        raise RunStoreError(f"cannot read {where}: {exc.strerror or exc}") from None


def _load_run(path: Path) -> RunRecord:
    events_path = path / "events.jsonl"
    check_run(path)
    problems: list[str] = []
    config = read_config(path / "config.json", problems)
    events: list[protocol.Event] = []
    skipped = 0
    try:
        for data in _read_jsonl(events_path):
            try:
                if data is None:
                    raise protocol.MalformedLine("not JSON")
                events.append(protocol.from_dict(data))
            except protocol.MalformedLine:
                skipped += 1
    except _Unreadable as why:
        raise RunStoreError(f"cannot read {events_path}: {why}") from None
    telemetry: list[dict[str, Any]] = []
    skipped_telemetry = 0
    try:
        for data in [*read_rotated_telemetry(path, problems), *_read_jsonl(path / "telemetry.jsonl")]:
            if telemetry_sample_ok(data):
                telemetry.append(data)
            else:
                skipped_telemetry += 1
    except _Unreadable as why:
        # the events are the run; without its telemetry (the file is read whole first) the report still stands
        problems.append(f"telemetry.jsonl cannot be read ({why}); the run is reported without telemetry")
    log = path / "run.log"
    if log.exists() and not log.is_file():
        problems.append("run.log is not a file; the run is reported without its log")
    problems.extend(note for note in (dropped_note(log), dropped_note(path / "telemetry.jsonl")) if note)
    return RunRecord(path=path, config=config, events=events, skipped_lines=skipped, telemetry=telemetry,
                     skipped_telemetry_lines=skipped_telemetry, problems=problems)
