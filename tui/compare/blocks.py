"""compare.md and compare.html say the same thing: the comparison as the report's blocks, in English or Chinese.

Rendered by the report's own renderers (``tui.report.markdown``, ``tui.report.html``). In Chinese what
cardbench writes is Chinese; what it quotes (paths, device names, run ids) is in code spans.
"""

from __future__ import annotations

from typing import Any

from tui.compare.comparison import Comparison, MetricRow, WorkloadComparison
from tui.compare.prices import unit_name
from workloads.facts.formatting import format_duration, format_number, percent
from workloads.facts.missing import NA
from tui.i18n.voice import Voice
from tui.report.document import Block, Bullets, Heading, Image, Para, Table
from workloads import registry

CHART = "compare.png"
WORK_UNITS = ("images", "tokens")  # what a rate counts that compare.md names in either language

_AREA = "compare."  # compare.md's words in the catalogue (workloads.catalogue.compare), said by their name


def points(diff: float | None, say: Voice) -> str:
    """A difference of fractions in percentage points: '+1.2 pts'."""
    return NA if diff is None else say("pts", value=f"{100 * diff:+.1f}")


def _value(row: MetricRow, i: int, lang: str = "en") -> str:
    value = row.values[i]
    if row.metric.kind == "seconds":   # a duration in its units, as the report says it (a cold start's phases)
        return format_duration(value, lang)
    return percent(value) if row.metric.kind == "fraction" else format_number(value)


def _cost(p: Any, key: str, currency: str) -> str:
    value = p.cost.get(key) if p is not None else None
    return NA if value is None else f"{value:,.2f} {currency}"


def _workload(c: Comparison, w: WorkloadComparison, say: Voice) -> list[Block]:
    base = c.sides[c.baseline].label
    spec = registry.spec_for(w.workload)
    blocks: list[Block] = [Heading(2, spec.title(say.lang))]
    head = [say("side"), *(d.setting.label(say.lang) for d in w.settings),
            f"{w.headline.metric.label(say.lang)}", say("ratio", base=base), say("verdict")]
    accuracy = w.accuracy
    for m in accuracy:
        head += [m.metric.label(say.lang), say("diff_to", base=base)]
    priced = any(p is not None for p in w.prices)
    basis = spec.cost_basis or ("tokens" if w.unit.startswith("tokens") else "images")
    if priced:
        work = w.unit.split("/")[0]
        head += [say("price"), say("per_unit", unit=say(work) if work in WORK_UNITS else work,
                                   currency=unit_name(c.currency, say.lang)),
                 say("million_tokens" if basis == "tokens" else "imagenet_epoch")]
    rows = []
    for i, side in enumerate(c.sides):
        run = w.runs[i]
        r = w.headline.ratios[i]
        if run is None:
            verdict = say("not_run")
        elif i == c.baseline:
            verdict = say("baseline")
        else:
            verdict = say(r.verdict) if r is not None else NA
        shown = r.text() if r is not None else "1.00" if i == c.baseline and run is not None else NA
        row = [side.label, *(_setting(d.values[i], say) for d in w.settings), _value(w.headline, i), shown, verdict]
        for m in accuracy:
            row += [_value(m, i), points(m.differences[i], say) if i != c.baseline else "-"]
        if priced:
            p = w.prices[i]
            row += [f"{p.price_per_hour:g} {p.currency}" if p else NA,
                    format_number(p.per_currency_unit) if p and p.per_currency_unit is not None else NA,
                    _cost(p, "cost_per_million_tokens" if basis == "tokens" else "cost_per_imagenet_epoch",
                          c.currency)]
        rows.append(row)
    blocks.append(Table(head, rows))
    if w.settings:
        blocks.append(Para(say("settings_differ")))
    lines = [v.line(say.lang) for v in w.verdicts if v is not None]
    if lines:
        blocks += [Heading(3, say("price_perf")), Bullets([f"**{line}**" for line in lines])]
    others = [m for m in w.metrics if m not in accuracy]
    if others:
        blocks.append(Heading(3, say("other_metrics")))
        table = []
        for m in others:
            cells = [m.metric.label(say.lang)]
            for i in range(len(c.sides)):
                extra = ""
                if m.ratios[i] is not None:
                    extra = f" ({m.ratios[i].value:.2f}x)"
                elif m.differences[i] is not None:
                    extra = f" ({points(m.differences[i], say)})"
                cells.append(_value(m, i, say.lang) + extra)
            table.append(cells)
        blocks.append(Table([say("metric"), *c.labels], table))
    return blocks


def _setting(value: Any, say: Voice) -> str:
    if isinstance(value, bool):
        return say("on" if value else "off")
    return NA if value is None else str(value)


def build(c: Comparison, lang: str = "en", chart: bool = False) -> list[Block]:
    say = Voice(lang, _AREA)
    base = c.sides[c.baseline]
    blocks: list[Block] = [Heading(1, say("title")), Para(say("how", base=base.label))]
    blocks.append(Heading(2, say("inputs")))
    blocks.append(Table([say("side"), say("input"), say("kind"), say("device"), say("host"), say("price")], [
        [s.label, say.quote(s.shown_path or NA), say(s.kind), say.quote(s.device or _device(s)),
         say.quote(s.host or NA), f"{s.price_per_hour:g} {c.currency}" if s.price_per_hour else NA] for s in c.sides]))
    for w in c.workloads:
        blocks += _workload(c, w, say)
    if chart:
        blocks.append(Image(CHART, say("chart")))
    if c.notes:
        blocks += [Heading(2, say("notes")), Bullets(c.note_lines(say.lang))]
    return blocks


def _device(side: Any) -> str:
    return next((r.summary.device for r in side.runs.values() if r.summary.device), None) or NA
