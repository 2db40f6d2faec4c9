"""The runs' result figures as data, each with its label and unit from the workload's typed record: the ``units``
beside metrics/summary.json's results and metrics/results.csv, one row a figure (the same record the terminal's
RESULT line and the report's tables print from)."""

from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

from tui.report.csv_text import csv_text
from workloads import registry
from workloads.facts.missing import finite_or_none

RESULT_COLUMNS = ("run_id", "workload", "key", "label", "value", "unit", "kind")


def units(workload: str, metrics: dict[str, Any]) -> dict[str, str | None]:
    """{key: unit} for each figure of a result: None for a key its workload's record does not declare."""
    spec = registry.spec_for(workload)
    return {key: (f.unit if (f := spec.metric(key)) is not None else None) for key in metrics}


def _rows(summaries: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    for s in summaries:
        spec = registry.spec_for(s.workload)
        for key, value in s.metrics.items():
            f = spec.metric(key)
            if isinstance(value, (list, dict)):
                value = json.dumps(value, default=str)   # a table in one cell: events.jsonl has it whole too
            elif isinstance(value, float):
                value = finite_or_none(value)            # NaN and infinities: an empty cell, as in steps.csv
            yield (s.run_id, s.workload, key, f.label("en") if f else "", value,
                   f.unit if f else "", f.kind if f else "")


def results_csv(summaries: Sequence[Any]) -> str:
    """One row per result figure of every run: its key, English label, value, unit and kind."""
    return csv_text(RESULT_COLUMNS, _rows(summaries))
