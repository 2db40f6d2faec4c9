"""The run store: one directory per workload run, append-only, rebuilt from disk.

    <runs dir>/<run id>/    config.json, events.jsonl, run.log, telemetry.jsonl (`workloads.rundir`)

The runs dir is ``--runs-dir``, else ``$CARDBENCH_RUNS_DIR``, else ``./cardbench-runs``.
Nothing is held only in memory: :func:`load_run` (`tui.store.record`) rebuilds everything from the
files, so a crash, a closed SSH session or a killed workbench loses nothing that
was already reported.

A run directory that stops taking writes mid-run (disk full, a filesystem gone
read-only, a file made immutable or unwritable) never stops the run: the first
failed write becomes the run's :class:`StoreFault` and nothing more is written
to it (a record with gaps in the middle would read as whole), so the caller can
say once which directory, why, and since when the run's progress is not on disk.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.figures import event_line
from workloads.facts.formatting import utc
from tui.store.record import RunRecord, RunStoreError, check_run, load_run
from tui.store.samples import telemetry_sample_ok
from workloads import protocol
from workloads.rundir import CONFIG, EVENTS, LOG, TELEMETRY
from workloads.rundir import segments as run_segments
from workloads.rundir.segments import SegmentedFile

__all__ = ["DEFAULT_DIR", "ENV_VAR", "Run", "RunRecord", "RunStore", "RunStoreError", "StoreFault", "check_run",
           "load_run", "runs_root", "telemetry_sample_ok"]

ENV_VAR = "CARDBENCH_RUNS_DIR"
DEFAULT_DIR = "cardbench-runs"


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
        # line-buffered appends: each write reaches the OS before the next event arrives. The events, the log and
        # the telemetry are rotated and capped (workloads.rundir.segments); the events' first segment, which
        # holds the start, is always kept
        self._events = SegmentedFile(path / EVENTS, run_segments.EVENTS_SEGMENT_BYTES, run_segments.EVENTS_KEEP_BYTES,
                                     opener=open)
        self._log = SegmentedFile(path / LOG, run_segments.LOG_SEGMENT_BYTES, run_segments.LOG_KEEP_BYTES,
                                  opener=open)
        self._telemetry: SegmentedFile | None = None
        self.workload: str | None = None  # from the start event: the result line in its workload's words

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
        if isinstance(event, protocol.Start):
            self.workload = event.workload
        # the result in the spec's words, as the log pane and `cardbench run` say it (tui.figures)
        self.log(event_line(event, self.workload), t=event.t)

    def log(self, line: str, t: float | None = None) -> None:
        self._write(self._log, f"[{utc(t or time.time())}] {line}\n")  # the zone in every file a report carries

    def append_telemetry(self, sample: dict[str, Any]) -> None:
        if self.fault is not None:
            return
        if self._telemetry is None:
            try:
                self._telemetry = SegmentedFile(self.path / TELEMETRY, run_segments.TELEMETRY_SEGMENT_BYTES,
                                                run_segments.TELEMETRY_KEEP_BYTES, opener=open,
                                                thin_every=run_segments.THIN_EVERY)
            except OSError as exc:
                self._fail(TELEMETRY, exc)
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
        # without the variable, still redacts them (tui.redact.record_for_run; imported here, at the
        # first run, not at the workbench's start)
        from tui.redact import RECORD_KEY, record_for_run, without_url_passwords

        recorded = record_for_run(data)
        # a URL's password (--url http://user:pw@host/v1) is not kept: config.json is what gets backed up
        data = without_url_passwords(data)
        if recorded is not None:
            data[RECORD_KEY] = recorded
        made = False
        try:
            path.mkdir(parents=True, exist_ok=False)
            made = True
            with open(path / CONFIG, "w", encoding="utf-8") as handle:
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
        return sorted((p for p in self.root.iterdir() if (p / EVENTS).exists()), key=lambda p: p.name)
