"""What compare accepts of what a bundle or a run directory says, checked in one place, so that the rest of
compare only ever sees values of the right type, finite and in range, and text it can print.

Two things are read from outside: a bundle's ``metrics/summary.json`` (the runs it holds, the host, the price it
was exported with) and each run's summary (``tui.report.summary``). Here:

- a figure compare computes with (a step's rate, the headline, a rate or fraction metric, a published figure, a
  price) outside its range refuses the input, in one line naming the figure and its value;
- a summary.json field of the wrong type refuses the input; a run's metric of the wrong type reads as missing,
  as the report reads it (``tui.report.summary.number``);
- everything else is cleaned: text through ``workloads.safe_text.one_line`` and cut short, numbers past any
  measurement missing, nesting and lists cut.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Iterable

from tui.report.summary import WorkloadSummary
from tui.trial.config import MAX_PRICE_PER_HOUR, TrialConfigError
from tui.trial.config import check_currency as currency_rule
from workloads import registry
from workloads.safe_text import file_name, one_line

SUMMARY = "metrics/summary.json"
# a rate past this is no card's (a trillion images or tokens a second): a bundle that says so was edited or broken
MAX_FIGURE = 1e12
# a measured figure is 0 or far above this (a drift of equal medians is 0, or ~1e-14 from rounding); a ratio to a
# smaller one would overflow a float (1e12 / 5e-324 is inf, and the verdict's round() of it raises)
MIN_FIGURE = 1e-30
# a fraction is a share, 0 to 1, a little over where a bound was underestimated: never a hundred times over
MAX_FRACTION = 100.0
# a count or a size past 10^18 (an exabyte) is no measurement: missing (an int of 400 digits is no float either)
MAX_NUMBER = 1e18
# a device name, a host, a setting or a run id: none is longer; what is cut ends in "…"
TEXT = 200
MAX_ITEMS = 1000
MAX_NESTING = 4
# a bundle of dozens of runs is large; thousands is no export anyone made, and each costs a rebuild
MAX_RUNS = 1000
# read beside the headline on every workload, whether or not its spec lists them
ACCURACY_KEYS = ("val_top1", "val_top5")
# compared with the rated figure of the device under --against
ACHIEVED = "achieved_tflops"


class ShapeError(ValueError):
    """What is wrong, in words for one line (the caller names the input)."""


def shown(value: Any) -> str:
    """A value as the line that refuses it quotes it: its repr, one line, cut (an int of 400 digits, a long text)."""
    return file_name(repr(value), 40)


def text(value: Any, limit: int = TEXT) -> str | None:
    return one_line(value, limit) if isinstance(value, str) else None


def clean(value: Any, depth: int = 0) -> Any:
    """``value`` (decoded JSON) with its text one-lined and cut, numbers past any measurement and NaN as None,
    containers cut to MAX_ITEMS and MAX_NESTING."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return one_line(value, TEXT)
    if isinstance(value, (int, float)):
        return value if -MAX_NUMBER <= value <= MAX_NUMBER else None   # NaN compares false: None too
    if depth >= MAX_NESTING:
        return None
    if isinstance(value, dict):
        return {one_line(str(k), TEXT): clean(v, depth + 1) for k, v in list(value.items())[:MAX_ITEMS]}
    if isinstance(value, (list, tuple)):
        return [clean(v, depth + 1) for v in value[:MAX_ITEMS]]
    return one_line(str(value), TEXT)


def _is_number(value: Any) -> bool:
    """An int or float that is not NaN or infinite; the report reads anything else as missing. An int of any
    size passes: the range checks compare it exactly, where math.isfinite would raise OverflowError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)


def _figure(workload: str, key: str, value: Any, *, signed: bool = False) -> None:
    if not _is_number(value):
        return
    size = abs(value)
    if (value < 0 and not signed) or size > MAX_FIGURE or 0 < size < MIN_FIGURE:
        low = f"-{MAX_FIGURE:g} to " if signed else ""
        raise ShapeError(f"{workload} reports {key} = {shown(value)}, outside any card's range ({low}{MAX_FIGURE:g}; "
                         f"0 or at least {MIN_FIGURE:g} in size)")


def _fraction(workload: str, key: str, value: Any) -> None:
    if _is_number(value) and not -MAX_FRACTION <= value <= MAX_FRACTION:
        raise ShapeError(f"{workload} reports {key} = {shown(value)}, outside the range of a fraction (-{MAX_FRACTION:g} "
                         f"to {MAX_FRACTION:g}): outside any card's")


def check_rates(workload: str, rates: Iterable[Any]) -> None:
    """Every step's rate within any card's range, before the summary's statistics add them up (fsum of two 1e308
    raises OverflowError, and a ratio or a spread of them is infinite)."""
    name = text(workload, 60) or "a run"
    for value in rates:
        _figure(name, "a step's throughput", value)


def checked(summary: WorkloadSummary, run_id: str) -> WorkloadSummary:
    """The run's summary as compare may use it: its figures in range (else ShapeError), the rest cleaned.
    ``run_id`` is the run's name in the bundle or its directory's (the summary's own is the temporary folder's)."""
    workload = text(summary.workload, 60) or ""
    spec = registry.spec_for(workload)
    metrics = summary.metrics
    head = spec.metric(spec.headline)
    _figure(workload, spec.headline, metrics.get(spec.headline), signed=head is not None and head.kind != "rate")
    for metric in spec.metrics:
        if metric.kind == "rate" and metric.key != spec.headline:
            _figure(workload, metric.key, metrics.get(metric.key))
        elif metric.kind == "fraction":
            _fraction(workload, metric.key, metrics.get(metric.key))
    for key in ACCURACY_KEYS:
        _fraction(workload, key, metrics.get(key))
    _figure(workload, ACHIEVED, metrics.get(ACHIEVED))
    published = metrics.get(f"published_{spec.headline}")
    if isinstance(published, dict):
        for source, value in published.items():
            _figure(workload, f"published {text(source, 60)}", value)
    fields = {f.name: clean(getattr(summary, f.name)) for f in dataclasses.fields(summary) if f.name != "throughput"}
    fields.update(run_id=text(run_id, 120) or "?", workload=workload, title=spec.title.en,
                  status=text(summary.status, 40) or "?",
                  throughput=dataclasses.replace(summary.throughput, unit=text(summary.throughput.unit, 40)))
    return dataclasses.replace(summary, **fields)


def check_price(value: Any, where: str) -> float:
    """A price per hour as `--price` and a bundle's must be: a finite number above 0 and below the trial's cap."""
    if not _is_number(value) or not 1e-6 <= value <= MAX_PRICE_PER_HOUR:
        raise ShapeError(f"{where} {shown(value)} is not a price per hour between 0.000001 and "
                         f"{MAX_PRICE_PER_HOUR:g}")
    return float(value)


def check_currency(value: Any, where: str) -> str:
    try:
        return currency_rule(value if isinstance(value, str) else repr(value))
    except TrialConfigError as exc:
        raise ShapeError(f"{where}: {one_line(str(exc), 160)}") from None


@dataclass(frozen=True)
class BundleSummary:
    """What compare reads of a bundle's summary.json."""

    run_ids: tuple[str, ...]     # as the bundle names them: member names, never paths
    host: str | None
    price_per_hour: float | None
    currency: str | None


def bundle_summary(data: Any) -> BundleSummary:
    if not isinstance(data, dict):
        raise ShapeError(f"{SUMMARY} is not an object")
    runs = data.get("runs")
    if runs is None:
        runs = []
    if not isinstance(runs, list):
        raise ShapeError(f'{SUMMARY} "runs" is not a list')
    if len(runs) > MAX_RUNS:
        raise ShapeError(f'{SUMMARY} "runs" lists {len(runs):,} runs; compare reads at most {MAX_RUNS:,}')
    run_ids: list[str] = []
    for n, run in enumerate(runs, start=1):
        run_id = run.get("run_id") if isinstance(run, dict) else None
        if not isinstance(run_id, str) or not run_id:
            raise ShapeError(f'{SUMMARY} "runs" item {n} is not an object with a "run_id"')
        if run_id in run_ids:
            raise ShapeError(f'{SUMMARY} "runs" lists run {text(run_id, 60)} twice')
        run_ids.append(run_id)
    host = data.get("host")
    if host is not None and not isinstance(host, str):
        raise ShapeError(f'{SUMMARY} "host" is not text')
    cost = data.get("cost")
    if cost is not None and not isinstance(cost, dict):
        raise ShapeError(f'{SUMMARY} "cost" is not an object')
    cost = cost or {}
    price, currency = cost.get("price_per_hour"), cost.get("currency")
    return BundleSummary(
        tuple(run_ids), text(host, 100) or None,
        check_price(price, "the bundle's price") if price is not None else None,
        check_currency(currency, "the bundle's currency") if currency is not None else None)
