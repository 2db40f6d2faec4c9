"""What the report is written from (`ReportData`), and the few phrasings every section of it shares. UI-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workloads.facts.formatting import device_label, rate
from workloads.facts.missing import NA
from workloads.facts.warmup import MIN_MEASURED_STEPS
from tui.report.envinfo import EnvInfo
from tui.report.i18n import Words
from tui.report.smi import SmiOutput
from tui.report.device_telemetry import DeviceStability
from tui.report.summary import WorkloadSummary
from tui.report.xid import XidReport
from workloads import registry


@dataclass
class ReportData:
    generated: float
    host: str
    lang: str
    summaries: list[WorkloadSummary]
    env: EnvInfo
    smi: SmiOutput
    smi_png_error: str | None
    screenshot_png_error: str | None
    screenshot_note: str | None
    charts: dict[str, list[tuple[str, str]]]        # run id -> [(title, path in bundle)]
    stability: list[DeviceStability]
    host_peaks: dict[str, Any]
    xid: XidReport
    price_per_hour: float | None
    currency: str
    price_from: str | None = "option"               # tui.trial.config.PRICE_GIVEN or PRICE_KEPT
    notes: list[str] = field(default_factory=list)  # export-level problems and choices (scaled suite...)
    files: list[str] = field(default_factory=list)
    sections: list[Any] = field(default_factory=list)   # the caller's blocks after the summary (a readiness table)
    screenshot_caption: str = "screenshot_of"       # or "screenshot_redrawn": drawn from the runs on disk later


def headline(s: WorkloadSummary, w: Words | None = None) -> str:
    """The headline in the workload's own unit (a soak's '% drift', not its inner steps' images/s); the step
    unit where the spec leaves it to each run (your own job's it/s); a verdict first where the spec has one (in
    ``w``'s language: the doctor's verdict words). A headline withheld for too few steps after warm-up says so; one
    measured beside another job on the host or card says that."""
    spec = registry.spec_for(s.workload)
    figure = rate(s.headline, s.headline_unit)
    if s.too_few_steps and w is not None:
        figure = w("too_few_steps", n=s.throughput.n, needed=MIN_MEASURED_STEPS)
    sharing = s.sharing
    if sharing is not None and w is not None:   # another job on the host or card: the figure is noise
        # the short mark: the whole sentence, with the threshold and the load, is the run's warning under Problems
        figure = w("figure_shared", figure=figure, shared=sharing.mark(w.lang))
    verdict = s.metrics.get(spec.verdict) if spec.verdict else None
    if not (isinstance(verdict, str) and verdict):
        return figure
    return (w("verdict_figure", verdict=w.check_status(verdict), figure=figure) if w is not None
            else f"{verdict} ({figure})")


def device_name(index: Any, name: Any, w: Words) -> str:
    """'GPU0 NVIDIA H100 80GB HBM3'; in Chinese the model name, as the device reports it, quoted."""
    label = device_label(index, name)
    tag = device_label(index, None).removesuffix(NA).strip()
    return f"{tag} {w.quote(name)}" if w.zh and name else label
