"""The comparison itself, UI-free: per workload each side's figures, its ratio to the baseline, prices, accuracy.

Built from sides (:mod:`tui.compare.load`); rendered by :mod:`tui.compare.blocks` (Markdown, HTML),
:mod:`tui.compare.chart` (PNG) and :meth:`Comparison.to_dict` (JSON). A workload is compared where
the baseline and at least one other side ran it; unlike runs raise :class:`~tui.compare.load.CompareError`
naming the settings unless ``allow_different``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from tui.compare import alike
from tui.compare.load import CompareError, RunFigures, Side
from tui.compare.prices import PriceFigures, Verdict, at_price, verdict
from tui.compare.ratio import Ratio, ratio, relative_spread
from tui.compare.shape import ACCURACY_KEYS
from tui.i18n import say
from workloads.catalogue import Message, message
from workloads.facts.formatting import percent
from workloads.facts.missing import finite_or_none
from workloads import registry
from workloads.result_record import FRACTION, Figure
from workloads.spec import Text

@dataclass
class MetricRow:
    """One metric across the sides: a rate read as a ratio to the baseline, a fraction as a difference."""

    metric: Figure
    values: list[float | None]
    ratios: list[Ratio | None]             # rates: per side, None for the baseline and where a figure is missing
    differences: list[float | None]        # fractions: side minus baseline, None for the baseline


@dataclass
class WorkloadComparison:
    workload: str
    title: str                              # "ResNet-50"
    unit: str
    headline: MetricRow
    runs: list[RunFigures | None]           # per side; None where a side did not run it
    metrics: list[MetricRow]                # the other rates and fractions the sides share
    settings: list[alike.Difference]        # columns: what differs (allowed or free to differ)
    unlike: list[alike.Difference]          # must-match settings that differ (only with allow_different)
    prices: list[PriceFigures | None]
    verdicts: list[Verdict | None]

    @property
    def accuracy(self) -> list[MetricRow]:
        return [m for m in self.metrics if m.metric.key in ACCURACY_KEYS]


@dataclass
class Comparison:
    sides: list[Side]
    baseline: int
    workloads: list[WorkloadComparison]
    notes: list[Text] = field(default_factory=list)  # what was left out or allowed, in English and Chinese
    currency: str = "USD"

    def note_lines(self, lang: str = "en") -> list[str]:
        return [n(lang) for n in self.notes]

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.sides]

    def below(self, threshold: float) -> list[str]:
        """'resnet50: B at 0.78 of A' for every headline ratio under ``threshold`` (--fail-below)."""
        out = []
        base = self.sides[self.baseline].label
        for w in self.workloads:
            for side, r in zip(self.sides, w.headline.ratios):
                if r is not None and r.value < threshold:   # a gate stays strict on noise, and says it is noise
                    out.append(f"{w.workload}: {side.label} at {r.value:.2f} of {base}"
                               + (f" ({say('compare.noise')})" if r.noise else ""))
        return out

    def to_dict(self) -> dict[str, Any]:
        def row(m: MetricRow) -> dict[str, Any]:
            return {"metric": m.metric.key, "label": m.metric.label.en, "kind": m.metric.kind,
                    "values": dict(zip(self.labels, m.values)),
                    "ratios": {lab: ({"ratio": r.value, "uncertainty": r.uncertainty, "verdict": r.verdict}
                                     if r else None) for lab, r in zip(self.labels, m.ratios)},
                    "differences": dict(zip(self.labels, m.differences))}

        return {
            "baseline": self.sides[self.baseline].label, "currency": self.currency,
            "sides": [{"label": s.label, "path": s.shown_path, "kind": s.kind, "host": s.host, "name": s.name,
                       "price_per_hour": s.price_per_hour, "currency": s.currency,
                       "runs": {w: r.summary.run_id for w, r in s.runs.items()}} for s in self.sides],
            "workloads": [{
                "workload": w.workload, "title": w.title, "unit": w.unit, "headline": row(w.headline),
                "metrics": [row(m) for m in w.metrics],
                "settings": [{"setting": d.setting.key, "values": dict(zip(self.labels, d.values))} for d in w.settings],
                "unlike": [{"setting": d.setting.key, "values": dict(zip(self.labels, d.values))} for d in w.unlike],
                "prices": {lab: ({"price_per_hour": p.price_per_hour, "currency": p.currency,
                                  "per_currency_unit": p.per_currency_unit, **p.cost} if p else None)
                           for lab, p in zip(self.labels, w.prices)},
                "verdicts": {lab: (v.line() if v else None) for lab, v in zip(self.labels, w.verdicts)},
            } for w in self.workloads],
            "notes": self.note_lines(),
        }


def _spread(run: RunFigures | None, side: Side) -> float | None:
    if run is None:
        return None
    if side.kind == "published":
        return 0.0  # a published figure states no spread: the ratio's uncertainty is the measured side's alone
    return relative_spread(run.mean, run.stdev)


def _shared(run: RunFigures | None) -> bool:
    return run is not None and run.summary.sharing is not None


def _shared_notes(workload: str, sides: Sequence[Side], runs: Sequence[RunFigures | None]) -> list[Message]:
    """One note per side whose run of ``workload`` shared its host or card, saying with what."""
    return [message("compare.note.shared", workload=workload, side=side.label,
                    what=lambda lang, found=run.summary.sharing: found.words(lang))
            for side, run in zip(sides, runs) if run is not None and run.summary.sharing is not None]


def _fallback_notes(workload: str, sides: Sequence[Side], runs: Sequence[RunFigures | None]) -> list[Message]:
    """One note per side whose run of ``workload`` had ops fall back to the CPU (``cpu_fallback_ops``), naming them."""
    notes = []
    for side, run in zip(sides, runs):
        rows = run.metric("cpu_fallback_ops") if run is not None else None
        ops = [r for r in rows if isinstance(r, dict) and r.get("op")] if isinstance(rows, list) else []
        if not ops:
            continue

        def named(lang: str, ops: list[dict] = ops) -> str:
            return say("report.list_sep", lang).join(
                say("compare.note.cpu_fallback_op", lang, op=str(r["op"]), share=percent(r.get("share_of_step")))
                for r in ops)
        notes.append(message("compare.note.cpu_fallback", workload=workload, side=side.label, ops=named))
    return notes


def _row(metric: Figure, runs: Sequence[RunFigures | None], sides: Sequence[Side], baseline: int,
         headline: bool = False) -> MetricRow:
    values = [finite_or_none(r.headline if headline else r.metric(metric.key)) if r else None for r in runs]
    base = values[baseline]
    ratios: list[Ratio | None] = [None] * len(runs)
    diffs: list[float | None] = [None] * len(runs)
    for i, (value, run) in enumerate(zip(values, runs)):
        if i == baseline or value is None or base is None:
            continue
        if metric.kind == "fraction":
            diffs[i] = value - base
        elif headline:
            ratios[i] = ratio(value, base, spread_compared=_spread(run, sides[i]),
                              spread_baseline=_spread(runs[baseline], sides[baseline]))
            if ratios[i] is not None and (_shared(run) or _shared(runs[baseline])):
                ratios[i] = dataclasses.replace(ratios[i], noise=True)
        else:
            ratios[i] = ratio(value, base)
    return MetricRow(metric, values, ratios, diffs)


def _compared_metrics(workload: str, runs: Sequence[RunFigures | None]) -> list[Figure]:
    """The spec's rates and fractions besides the headline, and the figures its record names to compare (a cold
    start's durations), that at least two sides report."""
    spec = registry.spec_for(workload)
    named = tuple(f for f in (spec.result.figure(k) for k in spec.result.COMPARED) if f is not None)
    out = []
    for m in (*spec.metrics, *(f for f in named if f not in spec.metrics)):
        if m.key == spec.headline or (m.kind not in ("rate", "fraction") and m not in named):
            continue
        if sum(1 for r in runs if r is not None and finite_or_none(r.metric(m.key)) is not None) >= 2:
            out.append(m)
    return out


def compare(sides: Sequence[Side], baseline: int = 0, *, allow_different: bool = False,
            prices: Mapping[str, float] | None = None, currency: str | None = None) -> Comparison:
    """The comparison of ``sides`` against ``sides[baseline]``; CompareError names unlike settings."""
    sides = list(sides)
    currency = _priced(sides, prices, currency)
    base = sides[baseline]
    notes = [n for s in sides for n in s.notes]
    compared: list[WorkloadComparison] = []
    refusals: list[str] = []
    for workload in base.runs:
        runs = [s.runs.get(workload) for s in sides]
        present = [(s, r) for s, r in zip(sides, runs) if r is not None]
        if len(present) < 2:
            notes.append(message("compare.note.only_baseline", workload=workload, base=base.label))
            continue
        labels = [s.label for s, _ in present]
        unlike = alike.differences([r for r in runs if r is not None])
        if unlike and not allow_different:
            refusals.append(f"{workload}: " + "; ".join(d.words(labels) for d in unlike))
            continue
        compared.append(_compare_workload(workload, sides, runs, baseline, unlike, currency))
        notes += _shared_notes(workload, sides, runs) + _fallback_notes(workload, sides, runs)
        if unlike:
            def differences(lang: str, unlike: list[alike.Difference] = unlike, labels: list[str] = labels) -> str:
                return say("report.list_sep", lang).join(d.words(labels, lang) for d in unlike)
            notes.append(message("compare.note.unlike", workload=workload, differences=differences))
    notes += [message("compare.note.not_on_baseline", workload=workload, side=side.label, base=base.label)
              for side in sides for workload in side.runs if workload not in base.runs]
    _refuse(sides, compared, refusals)
    return Comparison(sides, baseline, compared, notes, currency)


def _priced(sides: list[Side], prices: Mapping[str, float] | None, currency: str | None) -> str:
    """The sides' prices, the user's (``prices``, by label) over the bundles'; the one currency they are in."""
    prices = dict(prices or {})
    for side in sides:
        if side.label in prices:
            side.price_per_hour = prices[side.label]
    if currency is not None:
        return currency
    codes = {s.currency for s in sides if s.price_per_hour and s.currency}
    if len(codes) > 1:
        raise CompareError(f"cardbench compare: the bundles' prices are in different currencies "
                           f"({', '.join(sorted(codes))}); give --currency and --price LABEL=PRICE for each")
    return codes.pop() if codes else "USD"


def _compare_workload(workload: str, sides: list[Side], runs: list[RunFigures | None], baseline: int,
                      unlike: list[alike.Difference], currency: str) -> WorkloadComparison:
    """One workload's rows over the sides that ran it: the headline, the other rates, accuracy, prices, verdicts."""
    base = sides[baseline]
    free = alike.differences([r for r in runs if r is not None], alike.SHOWN)
    spec = registry.spec_for(workload)
    title = spec.short_title or workload
    head_metric = spec.metric(spec.headline) or Figure(spec.headline or "headline", spec.title, "/s")
    headline = _row(head_metric, runs, sides, baseline, headline=True)
    metrics = [_row(m, runs, sides, baseline) for m in _compared_metrics(workload, runs)]
    for m in ACCURACY_KEYS:  # accuracy beside the speed even when only one side measured it
        if m not in {x.metric.key for x in metrics} and any(r and finite_or_none(r.metric(m)) is not None for r in runs):
            metrics.append(_row(spec.metric(m) or Figure(m, spec.title, FRACTION), runs, sides, baseline))
    price_figs = [at_price(r, s.price_per_hour, currency) if r is not None and s.price_per_hour else None
                  for s, r in zip(sides, runs)]
    verdicts = [None if i == baseline or (r is not None and r.noise) else   # noise is no price verdict
                verdict(sides[i].label, base.label, title, r.value if r else None, sides[i].price_per_hour,
                        base.price_per_hour, currency, uncertainty=r.uncertainty if r else None)
                for i, r in enumerate(headline.ratios)]
    unit = next((r.summary.headline_unit for r in runs if r is not None), spec.unit)  # your own job's it/s
    return WorkloadComparison(workload, title, unit, headline, runs, metrics, _expand([*unlike, *free], runs),
                              _expand(unlike, runs), price_figs, verdicts)


def _refuse(sides: list[Side], compared: list[WorkloadComparison], refusals: list[str]) -> None:
    """CompareError when a workload's runs are unlike (without --allow-different) or none could be compared."""
    if refusals:
        raise CompareError("cardbench compare: unlike runs, refused (--allow-different compares them anyway): "
                           + " | ".join(refusals))
    if not compared:
        held = {s.label: sorted(s.runs) for s in sides}
        raise CompareError("cardbench compare: no workload ran on the baseline and another side ("
                           + "; ".join(f"{k}: {', '.join(v) or 'none'}" for k, v in held.items()) + ")")


def _expand(found: list[alike.Difference], runs: Sequence[RunFigures | None]) -> list[alike.Difference]:
    """Settings as columns over every side (the differences were found over the sides that ran the workload)."""
    return [alike.Difference(d.setting, tuple(d.setting.read(r) if r is not None else None for r in runs))
            for d in found]
