"""A run rebuilt from its directory (`load_run`): the report's, compare's and the workbench's record of it.

The files are read through `workloads.rundir.read` (every rotated segment, then the live file); nothing is held
only in memory, so a crash, a closed SSH session or a killed workbench loses nothing already reported.
"""

from __future__ import annotations

import contextlib
import gc
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from tui.store.telemetry import Telemetry
from tui.store.telemetry_read import read_telemetry_run
from workloads import protocol
from workloads.rundir import CONFIG, EVENTS, LOG, TELEMETRY
from workloads.rundir.read import Unreadable, read_all, read_config, read_text_all
from workloads.rundir.segments import dropped_note


class RunStoreError(Exception):
    """The runs dir cannot be used (not writable, not a directory), or a run cannot be read at all.

    The message is one line for the user.
    """


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
    telemetry: Telemetry = field(default_factory=Telemetry)   # a list of sample dicts given is made columns
    skipped_telemetry_lines: int = 0
    problems: list[str] = field(default_factory=list)
    # the log's text when it is not run.log's (a redacted copy of the run, tui.redact.Redactor.record)
    log: str | None = field(default=None, repr=False, compare=False)
    # of() per kind, built once: the report asks for the start event once per step row, and a long
    # run has hundreds of thousands of events (a rescan per call made the export quadratic)
    _of: dict[type, list[Any]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _of_events: list[protocol.Event] | None = field(default=None, init=False, repr=False, compare=False)
    _of_count: int = field(default=-1, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.telemetry = Telemetry.of(self.telemetry)

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
        return read_text_all(self.path / LOG)  # rotated segments first


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
    events_path = path / EVENTS
    try:
        if not path.is_dir():
            raise RunStoreError(f"{path} is not a cardbench run directory ("
                                f"{'not a directory' if path.exists() else 'no such directory'})")
        if not events_path.exists():
            if not (path / CONFIG).exists():
                raise RunStoreError(f"{path} is not a cardbench run directory (no {EVENTS})")
            return  # created, nothing reported yet
        with open(events_path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        where = events_path if events_path.exists() else path
        raise RunStoreError(f"cannot read {where}: {exc.strerror or exc}") from None


def _load_run(path: Path) -> RunRecord:
    events_path = path / EVENTS
    check_run(path)
    problems: list[str] = []
    config = read_config(path, problems)
    events: list[protocol.Event] = []
    skipped = 0
    try:
        for data in read_all(events_path, problems):   # a rotated run's earlier segments first
            try:
                if data is None:
                    raise protocol.MalformedLine("not JSON")
                events.append(protocol.from_dict(data))
            except protocol.MalformedLine:
                skipped += 1
    except Unreadable as why:
        raise RunStoreError(f"cannot read {events_path}: {why}") from None
    telemetry, skipped_telemetry = Telemetry(), 0
    try:
        telemetry, skipped_telemetry = read_telemetry_run(path / TELEMETRY, problems)
    except Unreadable as why:
        # the events are the run; without its telemetry (the file is read whole first) the report still stands
        problems.append(f"{TELEMETRY} cannot be read ({why}); the run is reported without telemetry")
    log = path / LOG
    if log.exists() and not log.is_file():
        problems.append(f"{LOG} is not a file; the run is reported without its log")
    problems.extend(note for note in (dropped_note(events_path), dropped_note(log), dropped_note(path / TELEMETRY))
                    if note)
    return RunRecord(path=path, config=config, events=events, skipped_lines=skipped, telemetry=telemetry,
                     skipped_telemetry_lines=skipped_telemetry, problems=problems)
