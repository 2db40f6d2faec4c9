"""What `cardbench compare` reads: a report bundle (.zip) or a run directory, as one side of the comparison.

A bundle holds each run's ``logs/<run>/events.jsonl`` and ``config.json``; they are read
the way a run directory is (``tui.store.load_run``), so a bundle and the run it was
made from give the same figures, per-step spread included. The bundle's
``metrics/summary.json`` adds what the runs do not hold: the host and the price the
export was given (``--price-per-hour``). Nothing is written where the inputs are.

Either is someone else's: its files are copied, bounded, into a temporary folder
(``bundle_reader``, ``scratch``) and rebuilt there one run at a time, and what they say
is checked once, by ``shape``, before anything else in compare sees it.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zlib
import statistics
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.compare import bundle_reader as reader, shape
from tui.compare.bundle_reader import Budget, BundleInputError
from tui.compare.scratch import scratch_dir
from tui.report.summary import WorkloadSummary, summarize
from workloads.catalogue import message
from workloads.facts.missing import finite_or_none
from tui.store import RunRecord, RunStoreError, load_run
from workloads.rundir import CONFIG, EVENTS
from workloads.rundir.segments import segment_paths
from workloads.safe_text import file_name
from workloads.spec import Text


def run_files() -> tuple[tuple[str, reader.Cap], ...]:
    """What a run is rebuilt from, each with its cap (run.log and telemetry are not read: compare shows neither)."""
    return ((EVENTS, reader.CAP_EVENTS), (CONFIG, reader.CAP_CONFIG))


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
    def shown_path(self) -> str:
        """The path as printed: a file name someone else chose may hold a newline or an escape sequence too."""
        return file_name(self.path, 400)

    @property
    def name(self) -> str:
        """'A (NVIDIA H200, cardbench-report-h-20261203T0600Z.zip)'."""
        where = file_name(Path(self.path).name) if self.kind != "published" else self.path
        device = self.device or next((r.summary.device for r in self.runs.values() if r.summary.device), None)
        inside = ", ".join(x for x in (device, where if where != device else None) if x)
        return f"{self.label} ({inside})" if inside else self.label


def figures(record: RunRecord, run_id: str) -> RunFigures:
    """The run's figures, checked by :mod:`tui.compare.shape` (its step rates before the summary adds them up)."""
    shape.check_rates(record.workload, (step.throughput for step in record.steps))
    summary = shape.checked(summarize(record), run_id)
    steps = [s.throughput for s in record.steps if finite_or_none(s.throughput) is not None]
    return RunFigures(summary, [float(v) for v in steps[summary.throughput.skipped:]])


def _choose(side: Side, runs: list[RunFigures]) -> None:
    """Per workload the last run that ended ok (else the last one); the others are named in the side's notes."""
    by_workload: dict[str, list[RunFigures]] = {}
    for run in runs:
        by_workload.setdefault(run.workload, []).append(run)
    for workload, group in by_workload.items():
        ok = [r for r in group if r.summary.status == "ok"]
        chosen = (ok or group)[-1]
        side.runs[workload] = chosen
        used = chosen.summary.run_id
        for other in group:
            if other is not chosen:
                side.notes.append(message("compare.note.left_out", side=side.label, other=other.summary.run_id,
                                       workload=workload, used=used))
        if chosen.summary.status != "ok":
            side.notes.append(message("compare.note.ended", side=side.label, run=used, workload=workload,
                                   status=chosen.summary.status))


def load_side(path: str, label: str) -> Side:
    """The side for ``path``; :class:`CompareError` (one line) when it is neither a bundle nor a run directory,
    or when what it holds is out of shape or range."""
    target = Path(path).expanduser()
    where = file_name(path)
    try:
        kind = reader.check_input(target)
    except BundleInputError as exc:
        raise CompareError(f"cardbench compare: {where} {exc}") from None
    try:
        if kind == "dir":
            side = Side(label, path, "run")
            runs = [_load_dir(target, where)]
        else:
            if not zipfile.is_zipfile(target):
                raise CompareError(f"cardbench compare: {where} is neither a report bundle (.zip) nor a run "
                                   "directory")
            side, runs = _load_bundle(target, path, label)
    except (BundleInputError, shape.ShapeError) as exc:
        raise CompareError(f"cardbench compare: {where}: {exc}") from None
    except OSError as exc:
        # the temporary folder's disk, full or read-only; not the input's fault, still one line
        raise CompareError(f"cardbench compare: cannot unpack {where} into {file_name(tempfile.gettempdir())}: "
                           f"{exc.strerror or exc}") from None
    _choose(side, runs)
    return side


def _rebuild(folder: Path, run_id: str) -> RunFigures | None:
    """The run whose files were copied into ``folder``; None when the run store cannot read them."""
    try:
        record = load_run(folder)
    except RunStoreError:
        return None
    return figures(record, run_id)


def _load_dir(target: Path, where: str) -> RunFigures:
    budget = Budget()
    with scratch_dir() as tmp:
        found = [reader.copy_file(target / name, tmp / name, cap, budget) for name, cap in run_files()]
        found += [_copy_segment(segment, tmp, budget) for segment in segment_paths(target / EVENTS)]
        if not any(found):
            raise CompareError(f"cardbench compare: {where} is not a cardbench run directory (no {EVENTS})")
        run = _rebuild(tmp, target.resolve().name)
    if run is None:
        raise CompareError(f"cardbench compare: {where}: its {EVENTS} cannot be read")
    return run


def _copy_segment(segment: Path, tmp: Path, budget: Budget) -> bool:
    """A rotated run's earlier events (events.0001.jsonl[.gz]) into ``tmp``, plain: copied as a run file is, then
    a gzipped one inflated under the same caps (it is someone else's: a small .gz can inflate to gigabytes)."""
    if segment.suffix != ".gz":
        return reader.copy_file(segment, tmp / segment.name, reader.CAP_EVENTS, budget)
    packed = tmp / (segment.name + ".copy")
    reader.copy_file(segment, packed, reader.CAP_EVENTS, budget)
    limit = min(reader.CAP_EVENTS.bytes, budget.left)
    try:
        with gzip.open(packed, "rb") as source, open(tmp / segment.stem, "xb") as out:
            budget.left -= reader.pump(source, out, limit, segment.name)
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise BundleInputError(f"{segment.name} is not a whole gzip file ({exc})") from None
    packed.unlink()
    return True


def _summary(data: bytes) -> Any:
    try:
        return json.loads(data)
    except RecursionError:
        raise shape.ShapeError(f"{shape.SUMMARY} holds JSON nested too deeply to read") from None
    except UnicodeDecodeError:
        raise shape.ShapeError(f"{shape.SUMMARY} is not UTF-8 text") from None
    except ValueError as exc:
        raise shape.ShapeError(f"{shape.SUMMARY} is not JSON ({file_name(str(exc), 80)})") from None


def _load_bundle(target: Path, path: str, label: str) -> tuple[Side, list[RunFigures]]:
    budget = Budget()
    where = file_name(path)
    with reader.open_zip(target) as zf:
        infos = {info.filename: info for info in zf.infolist()}
        summary_name = next((n for n in infos if n.endswith("/" + shape.SUMMARY) or n == shape.SUMMARY), None)
        if summary_name is None:
            raise CompareError(f"cardbench compare: {where} is not a cardbench report bundle (no {shape.SUMMARY})")
        top = summary_name[:-len(shape.SUMMARY)]
        about = shape.bundle_summary(_summary(reader.read_member(zf, infos[summary_name], reader.CAP_SUMMARY,
                                                                 budget)))
        side = Side(label, path, "bundle", host=about.host, price_per_hour=about.price_per_hour,
                    currency=about.currency)
        runs = []
        with scratch_dir() as tmp:
            for n, run_id in enumerate(about.run_ids):
                shown = shape.text(run_id, 120)
                # looked up by name: the run id names members, and the folder they go to is compare's own
                members = [(infos.get(f"{top}logs/{run_id}/{name}"), name, cap) for name, cap in run_files()]
                run = None
                if any(info is not None for info, _, _ in members):
                    folder = tmp / str(n)
                    folder.mkdir()
                    for info, name, cap in members:
                        if info is not None:
                            reader.extract_member(zf, info, folder / name, cap, budget)
                    run = _rebuild(folder, run_id)
                    shutil.rmtree(folder)   # one run on the temporary disk at a time
                if run is None:
                    side.notes.append(message("compare.note.no_events", side=label, run=shown))
                    continue
                runs.append(run)
    if not runs:
        raise CompareError(f"cardbench compare: {where} holds no run to compare")
    return side, runs
