"""The report bundle, UI-free: the workbench's `e` key and the headless export both call `export_bundle`.

    path = export_bundle([run_dir, ...], output_dir, screenshot_svg=svg, progress=print)
    path = export_bundle([run_dir, ...], output_dir, screenshot=tui.workbench.screenshot.app_screenshot)

Layout of ``cardbench-report-<host>-<UTC time>.zip`` (one top folder of the same name)::

    report.md, report.html      what the reviewer reads (English, or Chinese with lang="zh")
    screenshot.svg/.png         the workbench screen
    nvidia-smi.txt/.png         the management CLI's output (or cardbench's device table, said so)
    logs/<run>/run.log, events.jsonl, config.json
    metrics/summary.json, steps.csv, telemetry.csv
    charts/<run>-loss.png, -throughput.png, -utilisation.png
    env.json, env.txt           collect_env, device detection, doctor, CUDA init time, allow-listed env
    SHA256SUMS                  `sha256sum -c SHA256SUMS` inside the folder

Every text is redacted (see ``tui.report.redact``) before it is written. Nothing
here imports torch or textual, nor the workbench: the caller hands in the screen,
drawn (``screenshot_svg``) or as a way to draw it (``screenshot``); without either,
or when drawing fails, the screenshot is ``tui.report.screen``'s plain text screen.
"""

from __future__ import annotations

import concurrent.futures
import functools
import gc
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

from workloads.rundir import CONFIG, EVENTS, LOG
from workloads.rundir.read import read_text_all

__all__ = ["BundleError", "check_output_dir", "export_bundle"]


def __getattr__(name: str) -> Any:
    """BundleError and check_output_dir, from tui.report.bundle when first asked for: the workbench's first
    frame may import this package, but not the bundle's zip, hashing and redaction (20-odd ms of its
    start-up)."""
    if name in ("BundleError", "check_output_dir"):
        from tui.report import bundle

        return getattr(bundle, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _say(progress: Callable[[str], Any] | None, message: str) -> None:
    if progress is None:
        return
    try:
        progress(message)
    except Exception:  # noqa: BLE001 - a broken progress display must not cost the report
        pass


# (records, sample) -> (svg, None), or (None, why it could not be drawn); tui.workbench.screenshot.app_screenshot is one
Screenshot = Callable[[Sequence[Any], Any], tuple[str | None, str | None]]


def _draw_screen(screenshot: Screenshot | None, records: Sequence[Any], sample: Any) -> tuple[str | None, str]:
    """The caller's screen, or (None, why not) so the text screen stands in for it."""
    if screenshot is None:
        return None, "no workbench screen was drawn for this export"
    try:
        svg, why = screenshot(records, sample)
    except Exception as exc:  # noqa: BLE001 - a screen that cannot be drawn must not cost the report
        return None, f"the workbench screen could not be drawn ({type(exc).__name__}: {exc})"
    return (svg, "") if svg is not None else (None, why or "the workbench screen could not be drawn")


def _collect_env_in_background(progress: Callable[[str], Any] | None) -> Any:
    from tui.report import envinfo

    _say(progress, "collecting the environment in the background (python -m torch.utils.collect_env)")
    return envinfo.CollectEnvJob()


def _doctor_then_collect_env(progress: Callable[[str], Any] | None) -> "concurrent.futures.Future[tuple[Any, Any]]":
    """`tui.doctor.run_checks` on a thread of its own, then collect_env started from that thread (not beside the
    doctor, whose probe times the CUDA initialisation the report states): (its checks, or the exception it raised;
    the collect_env job, None when the interpreter is exiting: an export cut short starts no child after it)."""
    import threading

    from tui.doctor import run_checks
    from tui.report import envinfo

    _say(progress, "running the doctor, then collect_env (python -m torch.utils.collect_env), in the background")

    def both() -> tuple[Any, Any]:
        try:
            checks: Any = run_checks()
        except Exception as exc:  # noqa: BLE001 - the report is written without it, and says so
            checks = exc
        return checks, envinfo.CollectEnvJob() if threading.main_thread().is_alive() else None

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="cardbench-export-doctor")
    try:
        return pool.submit(both)
    finally:
        pool.shutdown(wait=False)   # the thread ends with the checks


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


@_thaws_the_heap
def export_bundle(run_dirs: Sequence[str | os.PathLike[str]], output_dir: str | os.PathLike[str], *,
                  screenshot_svg: str | None = None, screenshot: Screenshot | None = None,
                  progress: Callable[[str], Any] | None = None,
                  price_per_hour: float | None = None, currency: str = "USD", lang: str = "en",
                  price_from: str | None = "option",
                  doctor_checks: Sequence[Any] | None = None, doctor_note: str | None = None,
                  notes: Sequence[str] = (), sample: Any = None, environ: Mapping[str, str] | None = None,
                  screenshot_note: str | None = None) -> Path:
    """Write the bundle for these runs into ``output_dir``; return the zip's path.

    The screen: ``screenshot_svg`` when given, else what ``screenshot(records, sample)``
    draws, else (and when it draws nothing) a plain text screen, which the report says.
    ``progress(message)`` is called before each stage. ``doctor_checks`` (DoctorCheck
    objects or dicts): when None the doctor runs now. ``notes``: export-level facts the
    report must state (a scaled-down suite, a skipped workload...). Raises
    :class:`BundleError` (one line) when the output directory cannot be written or a run
    directory cannot be read; the runs on disk are never touched.
    """
    from tui.report import charts as charts_mod
    from tui.report import contents, device_telemetry, envinfo, html, markdown, png, screen, smi, summary, xid
    from tui import __version__
    from tui.report.cost import cost
    from workloads.facts.formatting import utc_iso
    from tui.report.bundle import Bundle, bundle_stem
    from tui.report.i18n import Words, note, quoted
    from tui.report.redact import Redactor, without_record
    from tui.store import RunStoreError, load_run
    from workloads import registry

    from tui.report.bundle import BundleError, check_output_dir

    started = time.time()
    out_dir = check_output_dir(Path(output_dir))
    notes = list(notes)

    # collect_env takes seconds whatever the runs: it runs while they are read and drawn. Not beside the
    # doctor (below, when it runs now), whose probe times the CUDA initialisation the report states
    collect = _collect_env_in_background(progress) if doctor_checks is not None else None

    _say(progress, "reading the runs")
    records = []
    for path in run_dirs:
        try:
            records.append(load_run(path))
        except RunStoreError as exc:
            raise BundleError(str(exc)) from None

    # one device snapshot for the whole export: env.json, the device table and the screenshot share it; taken
    # before the doctor starts (one NVML user at a time)
    _say(progress, "device detection")
    devices_note = None
    if sample is None:
        try:
            from tui.telemetry import collect_once

            sample = collect_once()
        except Exception as exc:  # noqa: BLE001
            devices_note = f"device detection failed: {type(exc).__name__}: {exc}"
            notes.append(note("note_devices_failed", error=quoted(f"{type(exc).__name__}: {exc}")))

    # the doctor runs now: after the reading (a long run's is two decoding processes, which its probe's torch
    # import would wait beside), while the screen and the charts are drawn; collect_env after it
    doctor = _doctor_then_collect_env(progress) if doctor_checks is None else None

    redactor = Redactor(environ)
    for record in records:
        # its arguments, its start config, and the secrets it recorded when it was created (the variable
        # may be gone from this shell: an export after a crash)
        redactor.learn_run(record)
    if redactor.hiding:  # a recorded secret no config holds now (one was edited): looked for in the logs too
        for record in records:
            redactor.discover(record.log_text)
    # what is drawn (the screen, the text screen, the charts) is drawn from redacted copies: a field or a
    # line cut to its width can then only cut the marker, never half a secret that no rule finds after
    shown = [redactor.record(record) for record in records]
    _freeze_what_was_read()

    _say(progress, "management CLI output")
    smi_out = smi.run_management_cli(sample=sample)

    bundle = Bundle(redactor)
    host = (sample.host.hostname if sample is not None and sample.host.hostname else None) or envinfo.hostname()
    stem = bundle_stem(host, started)

    smi_png_error = None
    smi_header = f"$ {smi_out.command}\n" if smi_out.tool else ""
    bundle.add_text("nvidia-smi.txt", smi_header + smi_out.text + "\n" + (f"\n# note: {smi_out.note}\n" if smi_out.note else ""))
    try:
        bundle.add_binary("nvidia-smi.png", png.text_to_png(redactor.text(smi_header + smi_out.text),
                                                            smi_out.command))
    except png.PngError as exc:
        smi_png_error = str(exc)
        notes.append(note("note_smi_png", error=quoted(exc)))

    _say(progress, "screenshot")
    screenshot_caption = "screenshot_of"   # the live workbench's own screen, handed in by the caller
    if screenshot_svg is None:
        screenshot_caption = "screenshot_redrawn"   # drawn now from the runs on disk (tui.workbench.screenshot, or text)
        screenshot_svg, why = _draw_screen(screenshot, shown, sample)
        if screenshot_svg is None:
            screenshot_note = screenshot_note or note("note_text_screen", why=quoted(why))
            screenshot_svg = png.terminal_svg(screen.text_screen(shown, sample), "cardbench", width=screen.WIDTH)
    # a screen drawn by the caller before the redactor knew (the live workbench) may hold a cut secret
    screenshot_svg = redactor.screen(screenshot_svg)
    bundle.add_text("screenshot.svg", screenshot_svg)
    screenshot_png_error = None
    try:
        bundle.add_binary("screenshot.png", png.svg_to_png(screenshot_svg))
    except png.PngError as exc:
        screenshot_png_error = str(exc)
        notes.append(note("note_screenshot_png", error=quoted(exc)))

    _say(progress, "charts")
    chart_files: dict[str, list[tuple[str, str]]] = {}
    for record in shown:
        for chart in charts_mod.charts_for(record):
            name = f"charts/{chart.name}.png"
            try:
                bundle.add_binary(name, png.svg_to_png(chart.svg))
            except png.PngError as exc:
                name = f"charts/{chart.name}.svg"
                bundle.add_text(name, chart.svg)
                notes.append(note("note_chart_png", chart=quoted(chart.name), error=quoted(exc)))
            chart_files.setdefault(record.id, []).append((chart.title, name))

    _say(progress, "metrics and logs")
    summaries = [summary.summarize(r) for r in records]
    stability = device_telemetry.stability(records)
    host_peaks = device_telemetry.host_peaks(records)
    bundle.add_json("metrics/summary.json", {
        "generated": started, "generated_utc": utc_iso(started), "host": host, "cardbench": __version__,
        "runs": [s.to_dict() for s in summaries],
        "stability": [d.to_dict() for d in stability], "host_peaks": host_peaks,
        "cost": ({"price_per_hour": price_per_hour, "currency": currency,
                  "runs": {s.run_id: cost(s, price_per_hour) for s in summaries}}
                 if price_per_hour is not None else None),
    })
    bundle.add_text("metrics/steps.csv", summary.steps_csv(records))
    bundle.add_text_chunks("metrics/telemetry.csv", device_telemetry.telemetry_csv_chunks(records))
    for record, drawn in zip(records, shown):
        bundle.add_redacted_text(f"logs/{record.id}/{LOG}", drawn.log_text)  # redacted once, for the screen
        # one events.jsonl in the bundle: a rotated run's segments before the live file
        bundle.add_jsonl(f"logs/{record.id}/{EVENTS}", read_text_all(record.path / EVENTS))
        # what the run recorded for the redactor (digests of its secrets) stays on the user's disk
        bundle.add_json(f"logs/{record.id}/{CONFIG}", without_record(record.config))
        for name in registry.spec_for(record.workload).run_files:  # what the workload's report points to (ops.csv)
            extra = record.path / name
            if extra.is_file():
                bundle.add_text(f"logs/{record.id}/{name}", extra.read_text(encoding="utf-8", errors="replace"))

    # the doctor's and collect_env's answers, waited for once the CSVs and logs are in: they ran meanwhile
    if doctor is not None:
        if not doctor.done():
            _say(progress, "waiting for the doctor")
        checks, collect = doctor.result()
        if isinstance(checks, Exception):
            doctor_checks = []
            doctor_note = Words(lang)("doctor_failed", why=f"{type(checks).__name__}: {checks}")
        else:
            doctor_checks = checks
            doctor_note = doctor_note or Words(lang)("doctor_at_export")
        if collect is None:   # the interpreter was exiting when the doctor ended: nothing waits for it
            collect = _collect_env_in_background(progress)
    if not collect.done():
        _say(progress, "waiting for collect_env")
    env = envinfo.gather(doctor_checks, redactor.environment(environ), sample=sample, doctor_note=doctor_note,
                         devices_note=devices_note, collect=collect)

    bundle.add_json("env.json", env.to_dict())
    bundle.add_text("env.txt", envinfo.env_text(env))

    _say(progress, "writing the report")
    if env.collect_env.note:
        notes.append(note("collect_env_note", note=quoted(env.collect_env.note)))
    xids = xid.read_kernel_log()
    data = contents.ReportData(
        generated=started, host=host, lang=lang, summaries=summaries, env=env, smi=smi_out,
        smi_png_error=smi_png_error, screenshot_png_error=screenshot_png_error, screenshot_note=screenshot_note,
        screenshot_caption=screenshot_caption,
        charts=chart_files, stability=stability, host_peaks=host_peaks, xid=xids,
        price_per_hour=price_per_hour, currency=currency, price_from=price_from, notes=notes,
        files=sorted([*bundle.names(), "report.md", "report.html", "SHA256SUMS"]))
    blocks = contents.build(data)
    bundle.add_text("report.md", markdown.render(blocks))
    title = "cardbench 测试报告" if lang == "zh" else "cardbench test report"
    bundle.add_text("report.html", html.render(blocks, title=f"{title} - {host}", lang=lang))

    _say(progress, "writing the zip")
    return bundle.write_zip(out_dir, stem, started)
