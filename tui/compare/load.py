"""What `cardbench compare` reads: a report bundle (.zip) or a run directory, as one side of the comparison.

A bundle holds each run's ``logs/<run>/events.jsonl`` and ``config.json``; they are read
the way a run directory is (``tui.runs.load_run``), so a bundle and the run it was
made from give the same figures, per-step spread included. The bundle's
``metrics/summary.json`` adds what the runs do not hold: the host and the price the
export was given (``--price-per-hour``). Nothing is written where the inputs are.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from tui.report.summary import WorkloadSummary, number, summarize
from tui.runs import RunRecord, RunStoreError, load_run
from workloads.spec import Text

SUMMARY = "metrics/summary.json"
# what a run is rebuilt from inside a bundle
RUN_FILES = ("events.jsonl", "config.json", "run.log")


class CompareError(Exception):
    """An input or option compare cannot use: one line for the user, exit 2."""


@dataclass
class RunFigures:
    """One run of one side: its summary (as the report states it) and its per-step rates after the warm-up."""

    summary: WorkloadSummary
    rates: list[float]

    @property
    def workload(self) -> str:
        return self.summary.workload

    @property
    def headline(self) -> float | None:
        return self.summary.headline

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.rates) if self.rates else None

    @property
    def stdev(self) -> float | None:
        """The spread of one step's rate (hyperfine's sigma); None below two steps."""
        return statistics.stdev(self.rates) if len(self.rates) > 1 else None

    def metric(self, key: str) -> Any:
        return self.summary.metrics.get(key)


@dataclass
class Side:
    """One input: a bundle, a run directory, or published figures (``--against``)."""

    label: str                        # A, B, C... in the order given
    path: str                         # as the user gave it (or the published device's name)
    kind: str                         # "bundle", "run" or "published"
    runs: dict[str, RunFigures] = field(default_factory=dict)  # workload -> the run compared
    host: str | None = None
    price_per_hour: float | None = None
    currency: str | None = None
    device: str | None = None
    notes: list[Text] = field(default_factory=list)  # what was left out (a second run of a workload...)

    @property
    def name(self) -> str:
        """'A (NVIDIA H200, cardbench-report-h-20261203T0600Z.zip)'."""
        where = Path(self.path).name if self.kind != "published" else self.path
        device = self.device or next((r.summary.device for r in self.runs.values() if r.summary.device), None)
        inside = ", ".join(x for x in (device, where if where != device else None) if x)
        return f"{self.label} ({inside})" if inside else self.label


def figures(record: RunRecord) -> RunFigures:
    summary = summarize(record)
    steps = [s.throughput for s in record.steps if number(s.throughput) is not None]
    return RunFigures(summary, [float(v) for v in steps[summary.throughput.skipped:]])


def _choose(side: Side, records: list[RunRecord]) -> None:
    """Per workload the last run that ended ok (else the last one); the others are named in the side's notes."""
    by_workload: dict[str, list[RunRecord]] = {}
    for record in records:
        by_workload.setdefault(record.workload, []).append(record)
    for workload, runs in by_workload.items():
        ok = [r for r in runs if r.status == "ok"]
        chosen = (ok or runs)[-1]
        side.runs[workload] = figures(chosen)
        for other in runs:
            if other is not chosen:
                side.notes.append(Text(f"{side.label}: run {other.id} ({workload}) left out; {chosen.id} is compared",
                                       f"{side.label}：未比较运行 `{other.id}`（`{workload}`），比较的是 `{chosen.id}`"))
        if chosen.status != "ok":
            side.notes.append(Text(f"{side.label}: run {chosen.id} ({workload}) ended {chosen.status}",
                                   f"{side.label}：运行 `{chosen.id}`（`{workload}`）结束状态为 `{chosen.status}`"))


def load_side(path: str, label: str) -> Side:
    """The side for ``path``; :class:`CompareError` (one line) when it is neither a bundle nor a run directory."""
    target = Path(path).expanduser()
    if not target.exists():
        raise CompareError(f"cardbench compare: {path} does not exist")
    if target.is_dir():
        try:
            record = load_run(target)
        except RunStoreError as exc:
            raise CompareError(f"cardbench compare: {exc}") from None
        side = Side(label, path, "run")
        _choose(side, [record])
        return side
    if not zipfile.is_zipfile(target):
        raise CompareError(f"cardbench compare: {path} is neither a report bundle (.zip) nor a run directory")
    try:
        return _load_bundle(target, path, label)
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompareError(f"cardbench compare: cannot read the bundle {path}: {exc}") from None


def _load_bundle(target: Path, path: str, label: str) -> Side:
    with zipfile.ZipFile(target) as zf:
        names = zf.namelist()
        summary_name = next((n for n in names if n.endswith("/" + SUMMARY) or n == SUMMARY), None)
        if summary_name is None:
            raise CompareError(f"cardbench compare: {path} is not a cardbench report bundle (no {SUMMARY})")
        top = summary_name[:-len(SUMMARY)]
        summary = json.loads(zf.read(summary_name).decode("utf-8"))
        if not isinstance(summary, dict):
            raise CompareError(f"cardbench compare: {path}: {SUMMARY} is not an object")
        run_ids = [r.get("run_id") for r in summary.get("runs") or [] if isinstance(r, dict)]
        side = Side(label, path, "bundle", host=summary.get("host") if isinstance(summary.get("host"), str) else None)
        cost = summary.get("cost")
        if isinstance(cost, dict):
            side.price_per_hour = number(cost.get("price_per_hour"))
            side.currency = cost.get("currency") if isinstance(cost.get("currency"), str) else None
        records = []
        with tempfile.TemporaryDirectory(prefix="cardbench-compare-") as tmp:
            for run_id in run_ids:
                if not isinstance(run_id, str) or PurePosixPath(run_id).name != run_id or run_id in ("", ".", ".."):
                    continue  # a run id that is not one directory name is not extracted anywhere
                folder = Path(tmp) / run_id
                folder.mkdir()
                for name in RUN_FILES:
                    member = f"{top}logs/{run_id}/{name}"
                    if member in names:
                        (folder / name).write_bytes(zf.read(member))
                try:
                    record = load_run(folder)
                except RunStoreError:
                    side.notes.append(Text(f"{label}: run {run_id} has no events in the bundle; left out",
                                           f"{label}：报告包中运行 `{run_id}` 没有事件，未比较"))
                    continue
                record.log = ""  # the folder goes away: nothing reads the log again
                records.append(record)
    if not records:
        raise CompareError(f"cardbench compare: {path} holds no run to compare")
    _choose(side, records)
    return side
