"""What report.md and report.html say, as blocks, from the gathered data."""

from __future__ import annotations

import shlex
from typing import Any

from tui import __version__
from tui.cpu_trap import headline as cpu_headline
from tui.figures import metric_text
from workloads.facts.formatting import format_bytes, format_number, percent, utc
from workloads.facts.missing import NA, is_finite
from tui.report.cards_read import cards_read
from tui.report.charts import caption
from tui.report.document import Block, Bullets, Code, Heading, Image, Para, Table
from tui.report.envinfo import EnvInfo
from tui.report.i18n import Words
# ReportData and amount here too: the report and its tests have always found them in this module
from tui.report.report_data import ReportData, device_name, headline
from tui.report.stability_and_cost import amount, cost_section, stability
from tui.report.summary import WorkloadSummary
from workloads import registry
from workloads.catalogue import Message
from workloads.result_record import TEXT, Figure
from workloads.rundir.sample_fields import (CPU_COUNT, DEVICES, DRIVER_VERSION, HOST, HOSTNAME, INDEX,
                                            MEM_TOTAL_BYTES, NAME, PCI_VENDOR, RUNTIME_VERSION)

__all__ = ["ReportData", "amount", "build"]



def _command(s: WorkloadSummary) -> str:
    return "cardbench run " + " ".join(shlex.quote(a) for a in [s.workload, *s.args])


def _read_against(s: WorkloadSummary, w: Words) -> str:
    """The bound or baseline a reader needs beside the headline number."""
    m = s.metrics
    spec = registry.spec_for(s.workload)
    if spec.read_against is not None:
        said = spec.read_against(m)
        return w.text(said) if said else NA
    parts = []
    tp = s.throughput
    key = "median_of_token_steps" if spec.counts == "tokens" else "median_of_steps"
    # the token form defines the headline (runs) and the steps (windows) apart; the plain one says they are one
    if tp.median is not None and spec.steps_repeat:
        runs, warmup = m.get("repeat"), (s.config or {}).get("warmup")
        parts.append(w.counted(key, tp.n, median=format_number(tp.median), mean=format_number(tp.mean),
                       p90=format_number(tp.p90), skipped=tp.skipped, runs=runs if isinstance(runs, int) else NA,
                       warmup=warmup if isinstance(warmup, int) else NA))
    if m.get("bandwidth_fraction") is not None:
        parts.append(w("bw_bound", fraction=percent(m.get("bandwidth_fraction")),
                       read=format_number(m.get("device_read_gbps"), 3),
                       bound=format_number(m.get(f"bound_{spec.headline}"), 3), unit=spec.unit))
    elif _unreliable(m, "bandwidth_fraction"):  # above 100 %: the bound was measured low, never shown as a share
        parts.append(w("bw_unreliable", achieved=format_number(m.get("bandwidth_gbps"), 3),
                       read=format_number(m.get("device_read_gbps"), 3),
                       bound=format_number(m.get(f"bound_{spec.headline}"), 3), unit=spec.unit))
    if m.get("achieved_tflops") is not None and m.get("peak_tflops") is not None:
        parts.append(w("flop_bound", achieved=format_number(m.get("achieved_tflops"), 3),
                       peak=format_number(m.get("peak_tflops"), 3), util=percent(m.get("flop_utilisation"))))
    published = m.get(f"published_{spec.headline}")
    if isinstance(published, dict) and published:
        refs = w.join((f"{w.quote(k)} {format_number(v)}" for k, v in published.items()), comma=True)
        size = m.get("image_size")
        if size not in (None, 224):
            refs += w("published_size", size=size)
        parts.append(w("published", refs=refs))
    return w.join(parts) or NA


def _unreliable(m: dict[str, Any], key: str) -> bool:
    """The workload withheld ``key`` as unreliable and published it as ``<key>_unreliable`` (with a warning)."""
    return m.get(key) is None and m.get(f"{key}_unreliable") is not None



def build(data: ReportData) -> list[Block]:
    w = Words(data.lang)
    out: list[Block] = [Heading(1, w("title"))]
    # the trial's worst case comes first: figures measured on the CPU beside cards torch could not use
    on_cpu = cpu_headline(data.summaries, data.env.devices, data.env.doctor, lang=w.lang, hint=w.hint)
    if on_cpu:
        out.append(Para(f"**{on_cpu}**"))
    # the sentence says UTC itself
    out.append(Para(w("generated", time=utc(data.generated, zone=False), host=data.host, version=__version__)))
    out += _summary(data, w)
    out += data.sections
    out += _device_software(data, w)
    out += _doctor(data, w)
    out += _workloads(data, w)
    out += _problems(data, w)
    out += stability(data, w)
    out += cost_section(data, w)
    out += [Heading(2, w("screenshot"))]
    if data.screenshot_note:
        out.append(Para(w.text(data.screenshot_note)))
    if data.screenshot_png_error:
        out.append(Para(w("png_missing", why=w.quote(data.screenshot_png_error)) + w("see_svg")))
    else:
        out += [Para(w(data.screenshot_caption)), Image("screenshot.png", w("alt_screenshot"))]
    out += [Heading(2, w("files")), Para(w("files_intro")), Bullets([f"`{f}`" for f in data.files])]
    return out


def _summary(data: ReportData, w: Words) -> list[Block]:
    blocks: list[Block] = [Heading(2, w("summary"))]
    if not data.summaries:
        return blocks + [Para(w("no_runs"))]
    rows = [[w.title(s.workload), w.status(s.status), headline(s, w), _read_against(s, w), s.precision or NA,
             format_number(s.batch_size), w.device(s.device) or NA] for s in data.summaries]
    blocks.append(Table([w("workload"), w("status"), w("result"), w("read_against"), w("precision"), w("batch"),
                         w("device")], rows))
    return blocks


def _device_software(data: ReportData, w: Words) -> list[Block]:
    env = data.env
    f = env.collect_env.fields
    devices = (env.devices or {}).get(DEVICES) or []
    names = w.join(w("device_row", label=device_name(d.get(INDEX), d.get(NAME), w),
                     vendor=d.get(PCI_VENDOR) or NA, memory=format_bytes(d.get(MEM_TOTAL_BYTES)),
                     driver=d.get(DRIVER_VERSION) or NA, runtime=d.get(RUNTIME_VERSION) or NA)
                   for d in devices) or w("no_accelerator")
    host = (env.devices or {}).get(HOST) or {}
    versions = next((s.versions for s in data.summaries if s.versions), {})
    def told(key: str, default: Any = NA) -> str:  # collect_env's own words (a version, "Could not collect")
        value = f.get(key, default)
        return w.quote(value) if value not in (None, "", NA) else NA

    rows = [
        [w("accelerators"), names],
        [w("gpu_models"), told("GPU models and configuration")],
        [w("driver_collect_env"), told("Nvidia driver version")],
        ["PyTorch", told("PyTorch version", versions.get("torch"))],
        [w("torch_build"), f"{told('CUDA used to build PyTorch')} / {told('ROCM used to build PyTorch')}"],
        [w("cuda_runtime"), told("CUDA runtime version")],
        ["cuDNN", told("cuDNN version")],
        [w("cuda_init"), w("cuda_init_value", duration=w.duration(env.cuda_init.get("seconds")),
                           evidence=_init_evidence(env, w) or NA)],
        [w("os"), told("OS", env.platform)],
        ["CPU", _cpu(f, host, w)],
        [w("host"), w("host_row", host=w.quote(host.get(HOSTNAME) or data.host),
                      memory=format_bytes(host.get(MEM_TOTAL_BYTES)))],
        ["Python", told("Python version", env.python)],
        ["cardbench", env.cardbench],
    ]
    blocks: list[Block] = [Heading(2, w("device_software")), Table([w("item"), w("value")], rows)]
    if env.collect_env.note:
        blocks.append(Para(w("collect_env_note", note=w.quote(env.collect_env.note))))
    blocks.append(Heading(3, w("management_cli")))
    if data.smi.tool:
        blocks.append(Para(w("smi_real", command=data.smi.command)))
    else:
        blocks.append(Para(w("smi_fallback", note=data.smi.why_in(w.lang))))
    if data.smi_png_error:
        blocks.append(Para(w("png_missing", why=w.quote(data.smi_png_error))))
        blocks.append(Code(data.smi.text))
    else:
        blocks.append(Image("nvidia-smi.png", w("alt_smi")))
    return blocks + cards_read(devices, w)



def _init_evidence(env: EnvInfo, w: Words) -> str:
    """The doctor's evidence for the CUDA initialisation time, in the doctor check's own Chinese when it has it."""
    check = next((c for c in env.doctor or () if c.get("id") == "device.init"), None)
    if check is not None and check.get("evidence") == env.cuda_init.get("evidence"):
        return w.check(check, "evidence")
    return w.quote(env.cuda_init.get("evidence"))


def _cpu(f: dict[str, Any], host: dict[str, Any], w: Words) -> str:
    cpu = f.get("CPU")
    model = None
    if isinstance(cpu, list):
        model = next((line.split(":", 1)[1].strip() for line in cpu if line.startswith("Model name")), None)
    count = host.get(CPU_COUNT)
    return w("cpu_row", model=w.quote(model) if model else NA, count=count if count is not None else NA)


def _doctor(data: ReportData, w: Words) -> list[Block]:
    blocks: list[Block] = [Heading(2, w("doctor"))]
    if data.env.doctor_note:
        blocks.append(Para(w.text(data.env.doctor_note)))
    if not data.env.doctor:
        return blocks + [Para(w("doctor_none"))]
    rows = [[w.check_status(c.get("status")), w.check(c, "name"), w.check(c, "evidence"), w.check(c, "hint")]
            for c in data.env.doctor]
    return blocks + [Table([w("status"), w("check"), w("evidence"), w("hint")], rows)]


def _metric_value(metric: Figure, s: WorkloadSummary, w: Words) -> str:
    """A metric formatted by its kind; precision and batch size as the run summary settled them."""
    if metric.key == "precision":
        return s.precision or NA
    if metric.key == "batch_size":
        return format_number(s.batch_size)
    if _unreliable(s.metrics, metric.key):
        return w("unreliable")
    value = s.metrics.get(metric.key)
    bound = metric.key == f"bound_{registry.spec_for(s.workload).headline}"
    if bound and _unreliable(s.metrics, "bandwidth_fraction"):
        return f"{format_number(value)}{w('comma')}{w('unreliable')}"
    said = metric_text(metric, value, w.lang)   # by its kind, as run.log, the log pane and `cardbench run` say it
    if metric.key == registry.spec_for(s.workload).verdict and isinstance(value, str):
        return w.check_status(value)   # PASS / WARN / FAIL: the doctor's verdict words
    return w.quote(said) if metric.kind == "text" and isinstance(value, str) else said


_MEMORY = ("peak_memory_bytes", "peak_memory_kind")   # one row says them (_memory_row), the workload's or not


def _memory_row(s: WorkloadSummary, w: Words) -> list[str]:
    """The peak memory, once: on the CPU the workloads can only give the process's peak RSS, so the row says so
    rather than "device" (whatever the workload's own label), with what the workload says it measured."""
    kind = s.metrics.get("peak_memory_kind")
    on_cpu = "rss" in str(kind or "").lower() or str(s.device or "").startswith("cpu")
    label = w.metric("peak_memory_rss" if on_cpu else "peak_memory_bytes", s.workload)
    value = format_bytes(s.peak_memory_bytes)
    return [label, f"{value}{w('said_as', what=w.quote(kind))}" if kind and s.peak_memory_bytes is not None else value]


# every run's table has these after the workload's own metrics (labels: the i18n table's common rows)
_ALWAYS = (Figure("precision", Message("metric.precision"), TEXT),
           Figure("batch_size", Message("metric.batch_size")))


def _workloads(data: ReportData, w: Words) -> list[Block]:
    blocks: list[Block] = [Heading(2, w("workloads"))]
    if not data.summaries:
        return blocks + [Para(w("no_runs"))]
    for s in data.summaries:
        blocks.append(Heading(3, w("run_named", title=w.title(s.workload), run=w.quote(s.run_id))))
        blocks.append(Para(w("command", command=_command(s))))
        blocks.append(Para(w("run_dir", run=s.run_id, status=w.status(s.status), device=w.device(s.device) or NA,
                             duration=w.duration(s.duration_s))))
        listed = (*registry.spec_for(s.workload).metrics, *_ALWAYS)
        rows = [[w.metric(m.key, s.workload), _metric_value(m, s, w)] for m in listed
                if (m.key in s.metrics or m.key in ("precision", "batch_size")) and m.key not in _MEMORY]
        tp = s.throughput
        if tp.median is not None and registry.spec_for(s.workload).steps_repeat:
            rows.append([w.metric("step_throughput"),
                         w("step_stats_none" if tp.skipped == 0 else "step_stats", median=format_number(tp.median),
                           mean=format_number(tp.mean), p90=format_number(tp.p90), unit=tp.unit or "",
                           steps=w.counted("steps_fmt", tp.n), skipped=tp.skipped)])
        if s.first_loss is not None or s.last_loss is not None:
            rows.append([w.metric("loss"), f"{format_number(s.first_loss)} -> {format_number(s.last_loss)}"])
        rows.append(_memory_row(s, w))
        rows.append([w.metric("fallbacks"), str(len(s.fallbacks))])
        rows.append([w.metric("warnings"), str(len(s.warnings))])
        blocks.append(Table([w("metric"), w("value")], rows))
        for extra in registry.spec_for(s.workload).report_tables:  # a workload's own tables (the scan's compatibility)
            heading, columns, table_rows = extra(s.metrics)
            if table_rows:
                blocks += [Heading(4, _said(heading, w.lang)), Table([_said(c, w.lang) for c in columns],
                                                                   [[_said(c, w.lang) for c in r] for r in table_rows])]
        for e in s.errors:
            blocks.append(Para(w("error_was", message=_error(e, w))))
        charts = data.charts.get(s.run_id) or []
        blocks.append(Heading(4, w("charts")))
        if charts:
            if w.zh:  # the pictures' words are drawn in a font that may have no Chinese glyphs
                blocks.append(Para(w("charts_in_english")))
            blocks += [Image(path, caption(title, w.lang)) for title, path in charts]
        else:
            blocks.append(Para(w("no_chart_data")))
        others = _other_metrics(s, {m.key for m in listed}, w)
        if others:
            blocks += [Heading(4, w("other_metrics")), Table([w("metric"), w("value")], others)]
    return blocks


def _other_metrics(s: WorkloadSummary, shown: set[str], w: Words) -> list[list[str]]:
    """Every result figure the table above does not show, labelled (the spec's label, else its key as written) and
    in its unit; N/A for a missing one, never a bare None or a 16-digit float."""
    spec = registry.spec_for(s.workload)
    rows = []
    for key, value in s.metrics.items():
        if key in shown or key in _MEMORY or isinstance(value, dict) or (isinstance(value, list) and len(str(value)) > 200):
            continue
        metric = spec.metric(key)
        label = metric.label(w.lang) if metric is not None else w.quote(key)
        rows.append([label, _figure(metric, value, w)])
    return rows


def _figure(metric: Figure | None, value: Any, w: Words) -> str:
    """A figure in its record's unit, as run.log and the log pane say it; a key no record declares (a run from
    another version) as a plain number."""
    if value is None:
        return NA
    if isinstance(value, bool):
        return w("yes" if value else "no")
    if isinstance(value, list):
        return w.join((_figure(metric, v, w) for v in value), comma=True) or w("none")
    if not is_finite(value):
        return w.quote(value)   # the workload's own words (a code span in Chinese)
    if metric is None:
        return format_number(value)
    return metric_text(metric, value, w.lang)   # its label says a unit the kind does not print


def _said(word: Any, lang: str) -> str:
    """A workload table's cell: its words (a Text or a catalogue Message) in the report's language, anything else as it is."""
    return word(lang) if callable(word) else str(word)


def _error(e: dict[str, Any], w: Words) -> str:
    """An error event: its message (the failure's own words, quoted in Chinese) and cardbench's hint."""
    hint = w("hint_in", hint=w.hint(e["hint"], e.get("hint_id"))) if e.get("hint") else ""
    return f"{w.quote(e.get('message', ''))}{hint}"


def _problems(data: ReportData, w: Words) -> list[Block]:
    items: list[str] = []
    for s in data.summaries:
        run = w("run_named", title=w.title(s.workload) if w.zh else s.workload, run=w.quote(s.run_id))
        for fb in s.fallbacks:
            where = ""
            if fb.get("layer") or fb.get("op"):
                where = w("fallback_where", layer=w.quote(fb.get("layer") or "?"), op=w.quote(fb.get("op") or "?"))
            items.append(w("fallback_item", run=run, error=w.quote(fb.get("error", "")), where=where,
                           action=w.quote(fb.get("action", ""))))
        for warn in s.warnings:
            items.append(w("warning_item", run=run, message=w.warning(warn)))
        for err in s.errors:
            hint = w("hint_in", hint=w.hint(err["hint"], err.get("hint_id"))) if err.get("hint") else ""
            items.append(w("error_item", run=run, message=w.quote(err.get("message", "")), hint=hint))
        if s.status != "ok":
            items.append(w("status_item", run=run, status=w.status(s.status)))
        spec = registry.spec_for(s.workload)
        verdict = s.metrics.get(spec.verdict or "")
        if isinstance(verdict, str) and verdict in spec.result.PROBLEMS:   # a soak's WARN: "no problems" would deny it
            items.append(w("verdict_item", run=run, verdict=w.check_status(verdict)))
        if s.skipped_lines:
            items.append(w("skipped_item", run=run, n=s.skipped_lines))
        if s.skipped_telemetry_lines:
            items.append(w("skipped_telemetry_item", run=run, n=s.skipped_telemetry_lines))
        for problem in s.problems:
            items.append(w("run_file_item", run=run, problem=w.quote(problem)))
    blocks: list[Block] = [Heading(2, w("problems"))]
    blocks.append(Bullets(items) if items else Para(w("problems_none")))
    if data.notes:
        blocks += [Heading(3, w("notes")), Bullets([w.text(n) for n in data.notes])]
    return blocks
