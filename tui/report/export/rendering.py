"""The export's rendering stage: the management CLI's output, the screen and the charts, drawn into the bundle
(text as it is, and as PNG where it can be rasterised; a PNG that cannot be made is a note, not a lost report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from tui.report import charts, png, screen, smi
from tui.report.bundle import Bundle
from tui.report.export.inputs import ExportInputs
from tui.report.i18n import note, quoted
from tui.redact import Redactor
from tui.store.record import RunRecord


@dataclass(frozen=True)
class ManagementCli:
    output: smi.SmiOutput
    png_error: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Screen:
    caption: str                    # "screenshot_of" (the live workbench's) or "screenshot_redrawn" (from disk)
    note: str | None = None         # why the text screen stands in, or the caller's word on the screen
    png_error: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Charts:
    files: dict[str, list[tuple[str, str]]] = field(default_factory=dict)   # run id -> [(title, path in bundle)]
    notes: tuple[str, ...] = ()


def render_management_cli(sample: Any, redactor: Redactor, bundle: Bundle) -> ManagementCli:
    """nvidia-smi.txt (or its vendor's tool, or cardbench's device table, said so) and its picture."""
    out = smi.run_management_cli(sample=sample)
    header = f"$ {out.command}\n" if out.tool else ""
    bundle.add_text("nvidia-smi.txt", header + out.text + "\n" + (f"\n# note: {out.note}\n" if out.note else ""))
    try:
        bundle.add_binary("nvidia-smi.png", png.text_to_png(redactor.text(header + out.text), out.command))
    except png.PngError as exc:
        return ManagementCli(out, str(exc), (note("note_smi_png", error=quoted(exc)),))
    return ManagementCli(out)


def render_screen(inputs: ExportInputs, shown: Sequence[RunRecord], sample: Any, redactor: Redactor,
                  bundle: Bundle) -> Screen:
    """screenshot.svg and .png: the caller's screen, else one drawn now from the runs, else the text screen."""
    svg, caption, screen_note = inputs.screenshot_svg, "screenshot_of", inputs.screenshot_note
    if svg is None:
        caption = "screenshot_redrawn"
        svg, why = _draw_screen(inputs, shown, sample)
        if svg is None:
            screen_note = screen_note or note("note_text_screen", why=quoted(why))
            svg = png.terminal_svg(screen.text_screen(shown, sample), "cardbench", width=screen.WIDTH)
    # a screen drawn by the caller before the redactor knew (the live workbench) may hold a cut secret
    svg = redactor.screen(svg)
    bundle.add_text("screenshot.svg", svg)
    try:
        bundle.add_binary("screenshot.png", png.svg_to_png(svg))
    except png.PngError as exc:
        return Screen(caption, screen_note, str(exc), (note("note_screenshot_png", error=quoted(exc)),))
    return Screen(caption, screen_note)


def _draw_screen(inputs: ExportInputs, shown: Sequence[RunRecord], sample: Any) -> tuple[str | None, str]:
    """The caller's way to draw the screen, or (None, why not) so the text screen stands in for it."""
    if inputs.screenshot is None:
        return None, "no workbench screen was drawn for this export"
    try:
        svg, why = inputs.screenshot(shown, sample)
    except Exception as exc:  # noqa: BLE001 - a screen that cannot be drawn must not cost the report
        return None, f"the workbench screen could not be drawn ({type(exc).__name__}: {exc})"
    return (svg, "") if svg is not None else (None, why or "the workbench screen could not be drawn")


def render_charts(shown: Sequence[RunRecord], bundle: Bundle) -> Charts:
    """charts/<run>-<chart>.png for each run (the SVG when it cannot be rasterised)."""
    files: dict[str, list[tuple[str, str]]] = {}
    notes = []
    for record in shown:
        for chart in charts.charts_for(record):
            name = f"charts/{chart.name}.png"
            try:
                bundle.add_binary(name, png.svg_to_png(chart.svg))
            except png.PngError as exc:
                name = f"charts/{chart.name}.svg"
                bundle.add_text(name, chart.svg)
                notes.append(note("note_chart_png", chart=quoted(chart.name), error=quoted(exc)))
            files.setdefault(record.id, []).append((chart.title, name))
    return Charts(files, tuple(notes))
