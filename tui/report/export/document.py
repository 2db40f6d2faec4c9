"""The export's document stage: report.md and report.html, the same blocks (``tui.report.contents``) written
twice, from everything the earlier stages gathered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tui.report import contents, html, markdown, xid
from tui.report.report_data import ReportData
from tui.report.bundle import SUMS, Bundle
from tui.report.envinfo import EnvInfo
from tui.report.export.inputs import ExportInputs
from tui.report.export.metrics import Figures
from tui.report.export.rendering import Charts, ManagementCli, Screen
from tui.report.i18n import note, quoted
from workloads.catalogue import say

REPORT_MD, REPORT_HTML = "report.md", "report.html"


@dataclass(frozen=True)
class Gathered:
    """What the stages before the document made: its sections are written from these."""

    generated: float
    host: str
    management_cli: ManagementCli
    screen: Screen
    charts: Charts
    figures: Figures
    env: EnvInfo
    notes: Sequence[str]   # the caller's and the stages' notes, in the order they arose


def write_document(inputs: ExportInputs, gathered: Gathered, bundle: Bundle) -> None:
    """report.md and report.html into the bundle (the list of files they give is the bundle's, with them)."""
    blocks = contents.build(report_data(inputs, gathered, bundle.names()))
    bundle.add_text(REPORT_MD, markdown.render(blocks))
    title = say("report.title", inputs.lang)
    bundle.add_text(REPORT_HTML, html.render(blocks, title=f"{title} - {gathered.host}", lang=inputs.lang))


def report_data(inputs: ExportInputs, gathered: Gathered, files: Sequence[str]) -> ReportData:
    """The report's data: what was gathered, the kernel's Xid lines, and the bundle's files with the report's."""
    notes = list(gathered.notes)
    if gathered.env.collect_env.note:
        notes.append(note("collect_env_note", note=quoted(gathered.env.collect_env.note)))
    cli, screen, figures = gathered.management_cli, gathered.screen, gathered.figures
    return ReportData(
        generated=gathered.generated, host=gathered.host, lang=inputs.lang, summaries=figures.summaries,
        env=gathered.env, smi=cli.output, smi_png_error=cli.png_error, screenshot_png_error=screen.png_error,
        screenshot_note=screen.note, screenshot_caption=screen.caption, charts=gathered.charts.files,
        stability=figures.stability, host_peaks=figures.host_peaks, xid=xid.read_kernel_log(),
        price_per_hour=inputs.price_per_hour, currency=inputs.currency, price_from=inputs.price_from, notes=notes,
        files=sorted([*files, REPORT_MD, REPORT_HTML, SUMS]), sections=list(inputs.sections))
