"""The export's metrics stage: metrics/summary.json, results.csv, steps.csv and telemetry.csv, and the figures the report's
tables are written from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from tui import __version__
from workloads.facts.formatting import utc_iso
from tui.report import device_telemetry, summary
from tui.report.bundle import Bundle
from tui.report.cost import cost
from tui.report.device_telemetry import DeviceStability
from tui.report.export.inputs import ExportInputs
from tui.report.result_figures import results_csv
from tui.report.summary import WorkloadSummary
from tui.store.record import RunRecord


@dataclass(frozen=True)
class Figures:
    summaries: list[WorkloadSummary]
    stability: list[DeviceStability]
    host_peaks: dict[str, Any]


def write_metrics(inputs: ExportInputs, records: Sequence[RunRecord], generated: float, host: str,
                  bundle: Bundle) -> Figures:
    """The runs' figures, written as metrics/summary.json (with their cost at the user's price) and two CSVs."""
    figures = Figures([summary.summarize(r) for r in records], device_telemetry.stability(records),
                      device_telemetry.host_peaks(records))
    bundle.add_json("metrics/summary.json", {
        "generated": generated, "generated_utc": utc_iso(generated), "host": host, "cardbench": __version__,
        "runs": [s.to_dict() for s in figures.summaries],
        "stability": [d.to_dict() for d in figures.stability], "host_peaks": figures.host_peaks,
        "cost": _cost(inputs, figures.summaries),
    })
    bundle.add_text("metrics/steps.csv", summary.steps_csv(records))
    bundle.add_text("metrics/results.csv", results_csv(figures.summaries))
    bundle.add_text_chunks("metrics/telemetry.csv", device_telemetry.telemetry_csv_chunks(records))
    return figures


def _cost(inputs: ExportInputs, summaries: Sequence[WorkloadSummary]) -> dict[str, Any] | None:
    if inputs.price_per_hour is None:
        return None
    return {"price_per_hour": inputs.price_per_hour, "currency": inputs.currency,
            "runs": {s.run_id: cost(s, inputs.price_per_hour) for s in summaries}}
