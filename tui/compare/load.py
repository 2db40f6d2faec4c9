"""What `cardbench compare` reads: a report bundle (.zip) or a run directory, as one side of the comparison.

A bundle holds each run's ``logs/<run>/events.jsonl`` and ``config.json``; they are read
the way a run directory is (``tui.runs.load_run``), so a bundle and the run it was
made from give the same figures, per-step spread included. The bundle's
``metrics/summary.json`` adds what the runs do not hold: the host and the price the
export was given (``--price-per-hour``). Nothing is written where the inputs are.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.report.summary import WorkloadSummary, number, summarize
from tui.runs import RunRecord, RunStoreError, load_run
from tui.compare.bundle_reader import (CAP_CONFIG, CAP_EVENTS, CAP_SUMMARY, Budget, BundleInputError, check_input,
                                       extract_member, read_member)
from workloads.safe_text import file_name, one_line
from workloads.spec import Text

SUMMARY = "metrics/summary.json"
# what a run is rebuilt from inside a bundle, each with its cap (run.log is not read: compare needs no log)
RUN_FILES = (("events.jsonl", CAP_EVENTS), ("config.json", CAP_CONFIG))
# a run id as the run store names runs: one plain directory name
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


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
        for record in runs:   # before the summary's statistics add them up
            _in_range(workload, [step.throughput for step in record.steps])
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


# a rate past this is no card's (a trillion images or tokens a second): a bundle that says so was edited or broken
MAX_FIGURE = 1e12


def check_price(value: Any, where: str) -> float:
    """A price per hour as `--price` and a bundle's must be: a finite number above 0 and below the trial's cap."""
    from tui.trial.config import MAX_PRICE_PER_HOUR

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1e-6 <= value <= MAX_PRICE_PER_HOUR:
        shown = file_name(repr(value), 40)
        raise CompareError(f"cardbench compare: {where} {shown} is not a price per hour between 0.000001 and "
                           f"{MAX_PRICE_PER_HOUR:g}")
    return float(value)


def check_currency(value: Any, where: str) -> str:
    from tui.trial.config import TrialConfigError, check_currency as currency_rule

    try:
        return currency_rule(value if isinstance(value, str) else repr(value))
    except TrialConfigError as exc:
        raise CompareError(f"cardbench compare: {where}: {one_line(str(exc), 160)}") from None


class _OutOfRange(Exception):
    def __init__(self, workload: str, value: float):
        super().__init__(workload, value)
        self.workload, self.value = workload, value


def _in_range(workload: str, values) -> None:
    """Every rate a run states lies within any card's range, so no sum, spread or ratio of them overflows."""
    for value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
                and not 0 <= value <= MAX_FIGURE:
            raise _OutOfRange(workload, value)


def _check_figures(side: Side) -> None:
    for workload, run in side.runs.items():
        _in_range(workload, [run.headline, *run.rates])


def load_side(path: str, label: str) -> Side:
    """The side for ``path``; :class:`CompareError` (one line) when it is neither a bundle nor a run directory,
    or when what it holds is out of shape or range."""
    target = Path(path).expanduser()
    try:
        kind = check_input(target)
    except BundleInputError as exc:
        raise CompareError(f"cardbench compare: {file_name(path)} {exc}") from None
    try:
        if kind == "dir":
            try:
                record = load_run(target)
            except RunStoreError as exc:
                raise CompareError(f"cardbench compare: {one_line(str(exc), 300)}") from None
            side = Side(label, path, "run")
            _choose(side, [record])
        else:
            if not zipfile.is_zipfile(target):
                raise CompareError(f"cardbench compare: {file_name(path)} is neither a report bundle (.zip) nor a run "
                                   "directory")
            side = _load_bundle(target, path, label)
        _check_figures(side)
        return side
    except BundleInputError as exc:
        raise CompareError(f"cardbench compare: cannot read the bundle {file_name(path)}: {exc}") from None
    except _OutOfRange as exc:
        raise CompareError(f"cardbench compare: {file_name(path)}: {file_name(exc.workload, 40)} reports "
                           f"{exc.value:g} per second, outside any card's range (0 to {MAX_FIGURE:g})") from None
    except RecursionError:
        raise CompareError(f"cardbench compare: {file_name(path)} holds JSON nested too deeply to read") from None
    except (OSError, zipfile.BadZipFile, zlib.error, UnicodeDecodeError, ValueError, TypeError, AttributeError,
            OverflowError, KeyError) as exc:
        # the shapes checked above leave these for a bundle damaged in ways nobody listed: still one line
        raise CompareError(f"cardbench compare: cannot read {file_name(path)}: "
                           f"{file_name(type(exc).__name__ + ': ' + str(exc), 200)}") from None


def _load_bundle(target: Path, path: str, label: str) -> Side:
    budget = Budget()
    with zipfile.ZipFile(target) as zf:
        infos = {info.filename: info for info in zf.infolist()}
        summary_name = next((n for n in infos if n.endswith("/" + SUMMARY) or n == SUMMARY), None)
        if summary_name is None:
            raise CompareError(f"cardbench compare: {file_name(path)} is not a cardbench report bundle "
                               f"(no {SUMMARY})")
        top = summary_name[:-len(SUMMARY)]
        summary = json.loads(read_member(zf, infos[summary_name], CAP_SUMMARY, budget).decode("utf-8"))
        if not isinstance(summary, dict):
            raise CompareError(f"cardbench compare: {file_name(path)}: {SUMMARY} is not an object")
        runs = summary.get("runs") or []
        if not isinstance(runs, list):
            raise CompareError(f"cardbench compare: {file_name(path)}: {SUMMARY} \"runs\" is not a list")
        run_ids = [r.get("run_id") for r in runs if isinstance(r, dict)]
        host = summary.get("host")
        side = Side(label, path, "bundle", host=one_line(host, 100) if isinstance(host, str) and host else None)
        cost = summary.get("cost")
        if isinstance(cost, dict):
            if cost.get("price_per_hour") is not None:
                side.price_per_hour = check_price(cost["price_per_hour"], f"{file_name(path)}: the bundle's price")
            if cost.get("currency") is not None:
                side.currency = check_currency(cost["currency"], f"{file_name(path)}: the bundle's currency")
        records = []
        # removed on every way out, an exception or Ctrl+C included; the caps keep what it holds bounded
        with tempfile.TemporaryDirectory(prefix="cardbench-compare-") as tmp:
            for run_id in run_ids:
                if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
                    continue  # a run id that is not one plain directory name is not extracted anywhere
                folder = Path(tmp) / run_id
                folder.mkdir()
                for name, cap in RUN_FILES:
                    member = infos.get(f"{top}logs/{run_id}/{name}")
                    if member is not None:
                        extract_member(zf, member, folder / name, cap, budget)
                try:
                    record = load_run(folder)
                except RunStoreError:
                    side.notes.append(Text(f"{label}: run {run_id} has no events in the bundle; left out",
                                           f"{label}：报告包中运行 `{run_id}` 没有事件，未比较"))
                    continue
                record.log = ""  # the folder goes away: nothing reads the log again
                records.append(record)
    if not records:
        raise CompareError(f"cardbench compare: {file_name(path)} holds no run to compare")
    _choose(side, records)
    return side
