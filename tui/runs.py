"""The run store: one directory per workload run, append-only, rebuilt from disk.

    <runs dir>/<run id>/
        config.json       what was asked for (workload, arguments, start time)
        events.jsonl      every protocol event, appended and flushed as it arrives
        run.log           the human-readable log: event lines and the workload's stderr
        telemetry.jsonl   device/host samples taken while the run was active

The runs dir is ``--runs-dir``, else ``$CARDBENCH_RUNS_DIR``, else ``./cardbench-runs``.
Nothing is held only in memory: :func:`load_run` rebuilds everything from the
files, so a crash, a closed SSH session or a killed workbench loses nothing that
was already reported.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from workloads import protocol

ENV_VAR = "CARDBENCH_RUNS_DIR"
DEFAULT_DIR = "cardbench-runs"


class RunStoreError(Exception):
    """The runs dir cannot be used (not writable, not a directory)."""


def runs_root(override: str | os.PathLike[str] | None = None) -> Path:
    return Path(override or os.environ.get(ENV_VAR) or DEFAULT_DIR)


def _timestamp(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


class Run:
    """An open run directory that events, log lines and samples are appended to."""

    def __init__(self, path: Path):
        self.path = path
        self.id = path.name
        # line-buffered appends: each write reaches the OS before the next event arrives
        self._events = open(path / "events.jsonl", "a", encoding="utf-8", buffering=1)
        self._log = open(path / "run.log", "a", encoding="utf-8", buffering=1)
        self._telemetry = None

    def append(self, event: protocol.Event) -> None:
        self._events.write(event.to_json() + "\n")
        self._events.flush()
        self.log(event.describe(), t=event.t)

    def log(self, line: str, t: float | None = None) -> None:
        self._log.write(f"[{_timestamp(t or time.time())}] {line}\n")
        self._log.flush()

    def append_telemetry(self, sample: dict[str, Any]) -> None:
        if self._telemetry is None:
            self._telemetry = open(self.path / "telemetry.jsonl", "a", encoding="utf-8", buffering=1)
        self._telemetry.write(json.dumps(sample, separators=(",", ":")) + "\n")
        self._telemetry.flush()

    def close(self) -> None:
        for handle in (self._events, self._log, self._telemetry):
            if handle is not None and not handle.closed:
                handle.close()

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
        try:
            path.mkdir(parents=True, exist_ok=False)
            (path / "config.json").write_text(json.dumps(
                {"workload": workload, "args": list(args), "created": t, **config}, indent=2) + "\n",
                encoding="utf-8")
        except OSError as exc:
            raise RunStoreError(f"cannot create a run in {self.root}: {exc.strerror or exc}") from None
        return Run(path)

    def list(self) -> list[Path]:
        """Run directories, oldest first."""
        if not self.root.is_dir():
            return []
        return sorted((p for p in self.root.iterdir() if (p / "events.jsonl").exists()), key=lambda p: p.name)


@dataclass
class RunRecord:
    """A run rebuilt from its directory."""

    path: Path
    config: dict[str, Any]
    events: list[protocol.Event]
    skipped_lines: int = 0
    telemetry: list[dict[str, Any]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def workload(self) -> str:
        start = self.start
        return (start.workload if start else "") or self.config.get("workload", "")

    def of(self, kind: type[protocol.Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

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
        path = self.path / "run.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def _read_jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any] | None]]:
    if not path.exists():
        return
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                yield line, json.loads(line)
            except json.JSONDecodeError:
                yield line, None  # a line cut short by a crash


def load_run(path: str | os.PathLike[str]) -> RunRecord:
    """Rebuild a run from its directory; a torn last line is skipped, not fatal."""
    path = Path(path)
    if not (path / "events.jsonl").exists() and not (path / "config.json").exists():
        raise RunStoreError(f"{path} is not a cardbench run directory (no events.jsonl)")
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        config = {}
    events: list[protocol.Event] = []
    skipped = 0
    for _line, data in _read_jsonl(path / "events.jsonl"):
        try:
            if data is None:
                raise protocol.MalformedLine("not JSON")
            events.append(protocol.from_dict(data))
        except protocol.MalformedLine:
            skipped += 1
    telemetry = [data for _line, data in _read_jsonl(path / "telemetry.jsonl") if isinstance(data, dict)]
    return RunRecord(path=path, config=config, events=events, skipped_lines=skipped, telemetry=telemetry)
