"""The report bundle, UI-free: the workbench's `e` key and the headless export both call `export_bundle`.

    path = export_bundle(ExportInputs([run_dir, ...], output_dir, screenshot_svg=svg, progress=print))
    path = export_bundle(ExportInputs([run_dir, ...], output_dir, screenshot=tui.workbench.screenshot.app_screenshot))

A pipeline of stages over one frozen `ExportInputs`, each a module of this package:
read the runs and the devices (``reading``) -> redact (``redaction``) -> render the management CLI's output,
the screen and the charts (``rendering``), the metrics (``metrics``) and the logs (``logs``) -> env.json once the
doctor and collect_env, run in the background meanwhile, answer (``environment``) -> the document (``document``)
-> the zip (``tui.report.bundle.Bundle.write_zip``).

Layout of ``cardbench-report-<host>-<UTC time>.zip`` (one top folder of the same name)::

    report.md, report.html      what the reviewer reads (English, or Chinese with lang="zh")
    screenshot.svg/.png         the workbench screen
    nvidia-smi.txt/.png         the management CLI's output (or cardbench's device table, said so)
    logs/<run>/run.log, events.jsonl, config.json
    metrics/summary.json, steps.csv, telemetry.csv
    charts/<run>-loss.png, -throughput.png, -utilisation.png
    env.json, env.txt           collect_env, device detection, doctor, CUDA init time, allow-listed env
    SHA256SUMS                  `sha256sum -c SHA256SUMS` inside the folder

Every text is redacted (see ``tui.redact``) before it is written. Nothing
here imports torch or textual, nor the workbench: the caller hands in the screen,
drawn (``screenshot_svg``) or as a way to draw it (``screenshot``); without either,
or when drawing fails, the screenshot is ``tui.report.screen``'s plain text screen.
"""

from __future__ import annotations

import functools
import gc
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from tui.report import envinfo
from tui.report.bundle import Bundle, bundle_stem, check_output_dir
from tui.report.export.document import Gathered, write_document
from tui.report.export.environment import collect_env_first, doctor_then_collect_env, write_environment
from tui.report.export.inputs import ExportInputs, Screenshot
from tui.report.export.logs import write_logs
from tui.report.export.metrics import write_metrics
from tui.report.export.reading import Devices, detect_devices, read_runs
from tui.report.export.redaction import redact
from tui.report.export.rendering import render_charts, render_management_cli, render_screen

__all__ = ["ExportInputs", "Screenshot", "export_bundle"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _thaws_the_heap(fn: _F) -> _F:
    """What ``gc.freeze()`` froze inside ``fn`` is thawed when it returns or raises (the heap was not frozen
    before: a caller's own freeze is left alone, and then none is made inside)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        was_frozen = gc.get_freeze_count() > 0
        try:
            return fn(*args, **kwargs)
        finally:
            if not was_frozen:
                gc.unfreeze()

    return wrapper  # type: ignore[return-value]


def _freeze_what_was_read() -> None:
    """The runs just read stay to the end of the export and hold no cycle: a long run is millions of objects
    that every collection of what the rest allocates (the screen, the CSVs) would walk again."""
    if gc.get_freeze_count() == 0:
        gc.freeze()


def _host(devices: Devices) -> str:
    sample = devices.sample
    return (sample.host.hostname if sample is not None and sample.host.hostname else None) or envinfo.hostname()


@_thaws_the_heap
def export_bundle(inputs: ExportInputs) -> Path:
    """Write the bundle for ``inputs.run_dirs`` into ``inputs.output_dir``; return the zip's path.

    ``inputs.progress(message)`` is told each stage. Raises :class:`tui.report.bundle.BundleError`
    (one line) when the output directory cannot be written or a run directory cannot be
    read; the runs on disk are never touched.
    """
    started = time.time()
    out_dir = check_output_dir(inputs.output_dir)
    background = collect_env_first(inputs)   # seconds whatever the runs: it runs while they are read and drawn
    inputs.say("reading the runs")
    records = read_runs(inputs.run_dirs)
    inputs.say("device detection")
    devices = detect_devices(inputs.sample)
    background = doctor_then_collect_env(inputs, background)
    redacted = redact(records, inputs.environ)
    _freeze_what_was_read()
    bundle = Bundle(redacted.redactor)
    host = _host(devices)

    inputs.say("management CLI output")
    cli = render_management_cli(devices.sample, redacted.redactor, bundle)
    inputs.say("screenshot")
    screen = render_screen(inputs, redacted.shown, devices.sample, redacted.redactor, bundle)
    inputs.say("charts")
    charts = render_charts(redacted.shown, bundle)
    inputs.say("metrics and logs")
    figures = write_metrics(inputs, records, started, host, bundle)
    write_logs(records, redacted.shown, bundle)
    # the doctor's and collect_env's answers, waited for once the CSVs and logs are in: they ran meanwhile
    env = write_environment(inputs, background, redacted.redactor, devices, bundle)

    for name, text in (inputs.files or {}).items():
        bundle.add_text(name, text)
    inputs.say("writing the report")
    notes = [*inputs.notes, *devices.notes, *cli.notes, *screen.notes, *charts.notes]
    write_document(inputs, Gathered(started, host, cli, screen, charts, figures, env, notes), bundle)
    inputs.say("writing the zip")
    return bundle.write_zip(out_dir, bundle_stem(host, started), started)
