"""The bundle's performance data: summary.json's runs and steps.csv, from RunRecords (telemetry.csv, the
stability table and the host's peaks: `tui.report.device_telemetry`).

Missing data stays missing: a metric a run never reported is ``null`` in JSON
and an empty cell in CSV, never a zero. A value of the wrong type (a result
metric ``"fast"`` where a number belongs, a telemetry ``host`` that is not an
object) is treated as missing too: the report of a damaged run is still written.
Every pass is linear in the run's steps and samples (a long run has hundreds
of thousands).
"""

from __future__ import annotations

import math
import operator
import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from tui.store import RunRecord
from tui.report.csv_text import csv_text
from tui.report.result_figures import units
from tui.telemetry.sharing import Sharing
from workloads import protocol, registry
from workloads.facts.missing import finite_or_none
from workloads.facts.percentile import percentile
from workloads.facts.warmup import MIN_MEASURED_STEPS, measured_enough, split_warmup


@dataclass
class ThroughputStats:
    unit: str | None
    n: int
    skipped: int
    median: float | None
    mean: float | None
    p90: float | None
    min: float | None
    max: float | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def throughput_unit(record: RunRecord) -> str | None:
    """The unit the steps report their throughput in (the first that says), else the workload spec's."""
    unit = next((s.unit for s in record.steps if s.unit and finite_or_none(s.throughput) is not None), None)
    return unit or registry.spec_for(record.workload).unit or None


def measured_steps(record: RunRecord) -> tuple[int, list[protocol.Step], list[protocol.Step]]:
    """(how many are warm-up, the steps with a throughput, those of them after warm-up): the median's steps,
    which the throughput chart draws apart from the warm-up's."""
    steps = [s for s in record.steps if finite_or_none(s.throughput) is not None]
    spec = registry.spec_for(record.workload)
    result = record.result
    told = result.metrics.get("warmup_steps") if result else None
    # the one rule (workloads.facts.warmup): a live or cut run leaves out the same steps as the finished one
    skip, kept = split_warmup(steps, lambda s: s.extra.get("warmup") is True, told=told,
                              emits_warmup=spec.warmup_emits_steps)
    return skip, steps, kept


def throughput_stats(record: RunRecord) -> ThroughputStats:
    unit = throughput_unit(record)
    skip, _steps, kept = measured_steps(record)
    values = [s.throughput for s in kept]
    ordered = sorted(values)  # once, for the median, the p90 and the extremes
    return ThroughputStats(
        unit=unit, n=len(values), skipped=skip,
        median=statistics.median(ordered) if values else None,  # sorts again, but sorted data in linear time
        mean=statistics.fmean(values) if values else None,
        p90=percentile(ordered, 90),
        min=ordered[0] if values else None,
        max=ordered[-1] if values else None,
    )


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


@dataclass
class WorkloadSummary:
    """One run, reduced to what the report states."""

    run_id: str
    workload: str
    title: str
    status: str
    device: str | None
    args: list[str]
    config: dict[str, Any]
    versions: dict[str, Any]
    precision: str | None
    batch_size: int | None
    throughput: ThroughputStats
    metrics: dict[str, Any]
    ttft_s: float | None
    peak_memory_bytes: int | None
    first_loss: float | None
    last_loss: float | None
    steps: int
    epochs: int | None
    started: float | None
    ended: float | None
    fallbacks: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped_lines: int = 0
    skipped_telemetry_lines: int = 0
    problems: list[str] = field(default_factory=list)   # what was wrong with the run's files

    @property
    def duration_s(self) -> float | None:
        if self.started is None or self.ended is None:
            return None
        return max(0.0, self.ended - self.started)

    @property
    def too_few_steps(self) -> bool:
        """The headline is read from the run's steps (their rate is in its unit) and too few of them came after the
        warm-up for it to be a figure (`workloads.facts.warmup.MIN_MEASURED_STEPS`): a run cut at a CPU suite's
        deadline after one measured step said 1.771 images/s where the same settings give 56."""
        stats = self.throughput
        if stats.n + stats.skipped == 0:   # no step with a rate: the workload measured its headline its own way
            return False
        spec = registry.spec_for(self.workload)
        if not spec.steps_repeat:   # the steps are other work each (serve's levels): their median is no figure
            return False
        # the headline is the steps' median: the report's own (the result has none), or the workload's, which says
        # so by counting the warm-up steps it left out (a decoding benchmark's steps are only its progress)
        from_steps = finite_or_none(self.metrics.get(spec.headline)) is None or "warmup_steps" in self.metrics
        return (from_steps and (not spec.unit or spec.unit == stats.unit)
                and not measured_enough(stats.n))

    @property
    def headline(self) -> float | None:
        """The number the campaigns quote: the spec's headline metric from the result, else the step median where
        that is in the headline's unit (a cut soak's headline is a drift in %: its steps' images/s never stand in);
        None where it would rest on fewer steps after warm-up than a figure needs (`too_few_steps`)."""
        spec = registry.spec_for(self.workload)
        if self.too_few_steps:
            return None
        own = finite_or_none(self.metrics.get(spec.headline))
        if own is not None or not spec.steps_repeat:
            return own
        return self.throughput.median if not spec.unit or spec.unit == self.throughput.unit else None

    @property
    def sharing(self) -> Sharing | None:
        """What the run shared its host or card with, as the run recorded it (`tui.telemetry.sharing`): its figures
        are noise then, not the machine's speed."""
        return next((found for w in self.warnings if (found := Sharing.of_event(w)) is not None), None)

    @property
    def headline_unit(self) -> str:
        """The headline's unit: the workload's own (a soak's '% drift'), else its steps' (your own job's it/s)."""
        return registry.spec_for(self.workload).unit or self.throughput.unit or ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "workload": self.workload, "title": self.title, "status": self.status,
            "device": self.device, "args": self.args, "config": self.config, "versions": self.versions,
            "precision": self.precision, "batch_size": self.batch_size,
            "throughput": self.throughput.to_dict(), "headline": self.headline,
            # why a headline is null where the steps had a rate: fewer after warm-up than a figure needs
            "headline_needs_steps": MIN_MEASURED_STEPS if self.too_few_steps else None,
            "shared": self.sharing.words() if self.sharing else None,   # said in full among the warnings
            "ttft_s": self.ttft_s, "peak_memory_bytes": self.peak_memory_bytes,
            "first_loss": self.first_loss, "last_loss": self.last_loss,
            "steps": self.steps, "epochs": self.epochs, "duration_s": self.duration_s,
            "started": self.started, "ended": self.ended,
            "fallbacks": self.fallbacks, "warnings": self.warnings, "errors": self.errors,
            "skipped_event_lines": self.skipped_lines, "skipped_telemetry_lines": self.skipped_telemetry_lines,
            "problems": self.problems, "result": self.metrics, "units": units(self.workload, self.metrics),
        }


def _event_dict(event: protocol.Event) -> dict[str, Any]:
    data = event.to_dict()
    data.pop("event", None)
    return data


def summarize(record: RunRecord) -> WorkloadSummary:
    start = record.start
    result = record.result
    metrics = dict(result.metrics) if result else {}
    config = dict(start.config) if start else {}
    steps = record.steps
    losses = [s.loss for s in steps if finite_or_none(s.loss) is not None]
    peak_from_steps = max((s.memory_allocated_bytes for s in steps
                           if finite_or_none(s.memory_allocated_bytes) is not None), default=None)
    epochs = [s.epoch for s in steps if finite_or_none(s.epoch) is not None]
    times = [e.t for e in record.events]
    args = record.config.get("args")
    end = record.end
    title = registry.spec_for(record.workload).title.en
    return WorkloadSummary(
        run_id=record.id,
        workload=record.workload,
        title=title,
        status=record.status,
        device=(start.device if start else None) or None,
        args=[str(a) for a in args] if isinstance(args, list) else [],
        config=config,
        versions=dict(start.versions) if start else {},
        # a run without its result: what was asked for ("--amp off" is fp32)
        precision=_first(*(v for v in (metrics.get("precision"), metrics.get("dtype"), config.get("precision"),
                                       "fp32" if config.get("amp") == "off" else config.get("amp"),
                                       config.get("dtype")) if isinstance(v, str))),
        batch_size=_first(finite_or_none(metrics.get("batch_size")), finite_or_none(config.get("batch_size"))),
        throughput=throughput_stats(record),
        metrics=metrics,
        ttft_s=finite_or_none(metrics.get("ttft_s")),
        peak_memory_bytes=_first(finite_or_none(metrics.get("peak_memory_bytes")), peak_from_steps),
        first_loss=losses[0] if losses else None,
        last_loss=_first(finite_or_none(metrics.get("final_loss")), losses[-1] if losses else None),
        steps=len(steps),
        epochs=(max(epochs) - min(epochs) + 1) if epochs else finite_or_none(metrics.get("epochs")),
        started=_first(start.t if start else None, finite_or_none(record.config.get("created")),
                       times[0] if times else None),
        ended=_first(end.t if end else None, times[-1] if times else None),
        fallbacks=[_event_dict(e) for e in record.of(protocol.Fallback)],
        warnings=[_event_dict(e) for e in record.of(protocol.WorkloadWarning)],
        errors=[_event_dict(e) for e in record.of(protocol.Error)],
        skipped_lines=record.skipped_lines,
        skipped_telemetry_lines=record.skipped_telemetry_lines,
        problems=list(record.problems),
    )


# -- CSV ----------------------------------------------------------------------------------

STEP_COLUMNS = ["run_id", "workload", "t", "step", "epoch", "loss", "throughput", "unit", "step_s",
                "data_wait_s", "compute_s", "memory_allocated_bytes", "memory_reserved_bytes"]

def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    return value


_STEP_FIELDS = operator.attrgetter(*STEP_COLUMNS[2:])


def _nonfinite_written(text: str) -> bool:
    """Did a NaN or an infinity reach the CSV (rare: the rows are written again with those cells empty)?"""
    return ",nan" in text or ",inf" in text or ",-inf" in text


def _steps_rows(records: Sequence[RunRecord], row: Any) -> Iterable[Sequence[Any]]:
    for record in records:
        run_id, workload = record.id, record.workload  # once per run, not per row
        yield from (row(run_id, workload, step) for step in record.steps)


def steps_csv(records: Sequence[RunRecord]) -> str:
    """One row per step of every run: its fields straight from the event (a long run has 100,000s)."""
    text = csv_text(STEP_COLUMNS, _steps_rows(records, lambda run_id, workload, step: (
        run_id, workload, *_STEP_FIELDS(step))))
    if not _nonfinite_written(text):
        return text
    # a NaN or infinite value is an empty cell too (v - v is not 0)
    return csv_text(STEP_COLUMNS, _steps_rows(records, lambda run_id, workload, step: (run_id, workload, *(
        v if v.__class__ is not float or v - v == 0.0 else "" for v in _STEP_FIELDS(step)))))
