"""``--against "A100 80GB"``: published figures as the baseline side, each with its source and method.

A workload records the published figures its headline is read against in its result
(``published_<headline>``: source and method -> figure), and only at the settings they were
measured at (ResNet-50's are NVIDIA's at 224 px, AMP), so a run at other settings has none to
be compared with, and compare says so rather than set unlike figures side by side. The name
matches a source on whole words, case aside ("A100 80GB" matches "A100-80GB, AMP (...)").

The device's rated figures (``workloads/facts/rated.csv``, with their source and date) go
beside them as notes, where the table is installed and names the device.
"""

from __future__ import annotations

import re
from typing import Any

from tui.compare.load import CompareError, RunFigures, Side
from tui.compare.shape import ACHIEVED
from workloads.facts.formatting import format_number
from workloads.facts.missing import finite_or_none
from workloads.facts.rated import RatedPeak, rated_peak
from tui.report.summary import ThroughputStats, WorkloadSummary
from workloads.catalogue import message
from workloads import registry
from workloads.safe_text import one_line
from workloads.spec import Text

MIXED = ("fp16", "bf16")


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def matches(query: str, source: str) -> bool:
    wanted = words(query)
    return bool(wanted) and wanted <= words(source)


def _published(run: RunFigures) -> dict[str, float]:
    spec = registry.spec_for(run.workload)
    table = run.metric(f"published_{spec.headline}")
    if not isinstance(table, dict):
        return {}
    return {str(k): float(v) for k, v in table.items() if finite_or_none(v) is not None}


def _precision(source: str, measured: Any) -> str | None:
    """The precision a published figure was measured in, as far as its source says: AMP is fp16 or bf16."""
    if "amp" not in words(source):
        return None
    base = measured.split(" (")[0] if isinstance(measured, str) else None
    return base if base in MIXED else "AMP"


def _run(workload: str, source: str, value: float, measured: RunFigures) -> RunFigures:
    spec = registry.spec_for(workload)
    summary = WorkloadSummary(
        run_id=source, workload=workload, title=spec.title.en, status="published", device=None, args=[], config={},
        versions={}, precision=_precision(source, measured.summary.precision), batch_size=None,
        throughput=ThroughputStats(spec.unit, 0, 0, None, None, None, None, None), metrics={spec.headline: value},
        ttft_s=None, peak_memory_bytes=None, first_loss=None, last_loss=None, steps=0, epochs=None, started=None,
        ended=None)
    return RunFigures(summary, [])


def against(query: str, sides: list[Side]) -> Side:
    """The published side for ``query`` over the workloads the sides ran; CompareError when none matches."""
    query = one_line(query, 100)   # the side's label in every table and note
    side = Side(query, query, "published", device=query)
    known: set[str] = set()
    for measured in sides:
        for workload, run in measured.runs.items():
            table = _published(run)
            known.update(table)
            if workload in side.runs:
                continue
            source = next((s for s in table if matches(query, s)), None)
            if source is not None:
                side.runs[workload] = _run(workload, source, table[source], run)
                figure = f"{source} = {format_number(table[source])} {registry.spec_for(workload).unit}"
                side.notes.append(message("compare.note.published", query=query, figure=figure))
    if not side.runs:
        if known:
            raise CompareError(f"cardbench compare: --against {query!r} matches no published figure "
                               f"(these runs carry: {'; '.join(sorted(known))})")
        raise CompareError(f"cardbench compare: --against {query!r}: these runs carry no published figure to compare "
                           "with (a workload records them only at the settings they were measured at)")
    side.notes += rated_notes(query, sides)
    return side


def rated_figure(query: str, precision: str) -> RatedPeak | None:
    """The rated peak of ``query``'s device that a run in ``precision`` reads against, or None. ACHIEVED is a
    convolution network's training FLOP/s (ResNet-50's bounds), so it is read as that run's report reads it."""
    try:
        return rated_peak(query, precision, convolutions=True)
    except (OSError, ValueError):  # the table is not installed, or has a row it cannot read
        return None


def rated_notes(query: str, sides: list[Side]) -> list[Text]:
    """The device's rated figures beside what the runs achieved, each with its source; none without the table."""
    notes = []
    for side in sides:
        for run in side.runs.values():
            achieved = finite_or_none(run.metric(ACHIEVED))
            precision = str(run.summary.precision or "").split(" (")[0]
            figure = rated_figure(query, precision) if achieved is not None else None
            if figure is not None:
                share = f"{100 * achieved / figure.value:.1f} %"
                notes.append(message("compare.note.rated", side=side.label, achieved=format_number(achieved), precision=precision,
                                  share=share, device=figure.device, rated=format_number(figure.value), source=figure.source,
                                  date=figure.date))
    return notes
