"""How a result's figures read wherever they are printed: run.log, the log pane, `cardbench run`, the suite's lines.

One place turns a result's metrics into words, from the workload's spec: each metric by its label and its
kind (a rate with its unit, seconds as a duration, a fraction as a percentage, bytes in binary units), so
`RESULT: 15.43 tokens/s per sequence (decode, median after warm-up); time to first token 157 ms` reads as
the report's table does, never `tokens_per_s=15.43, ttft_s=0.157`. A metric the spec does not label is
named by its key without its unit suffix and formatted by that suffix (`_s` seconds, `_bytes` bytes,
`_fraction` a share): :func:`key_figure`, the one rule, which the report's "All result metrics" uses too.
The report's tables format by the same :func:`metric_text`.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from workloads.facts.formatting import format_bytes, format_duration, format_number, percent, rate
from workloads.facts.missing import NA, is_finite
from workloads import registry
from workloads.spec import Metric, Text

# past this a figure is no measurement (a child that printed 10**400, or 1e308): said as such, not printed whole
OUT_OF_RANGE = 1e18
# a nested value (a table, a list of failures) is counted in the line: events.jsonl keeps it whole
_NESTED_CHARS = 160
# a result's key names its unit (the workloads' one convention): `<noun>_per_s` a rate of that noun wherever it
# stands (`images_per_s_min`), else by its ending: (ending, the kind it formats as, the unit a number carries,
# what of the ending the name keeps). Longest endings first: `_tflops_per_device` before `_s`.
_PER_S = re.compile(r"(?:([a-z]+)_|^)per_s(?:_|$)")   # a bare `per_s`: a rate of nothing named, '1,200 /s'
# serve's vLLM-named figures: `ttft_ms_mean`, `itl_ms_p99` are milliseconds (`ttft_ms_p50_drift_pct` is a share)
_MS = re.compile(r"_ms(?=(?:_(?:mean|median|std|p\d+))?$)")
_KEY_ENDINGS = (("_bytes_per_step", "bytes", "", "per step"), ("_bytes", "bytes", "", ""),
                ("_tflops_per_device", "number", "TFLOP/s", "per device"), ("_tflops", "number", "TFLOP/s", ""),
                ("_gbps", "number", "GB/s", ""), ("gflop_per_image", "number", "GFLOP/image", ""),
                ("flops_per_token", "number", "FLOP/token", ""), ("fraction", "fraction", "", ""),
                ("_pct", "number", "%", ""), ("_s", "seconds", "", ""))


def metric_text(metric: Metric, value: Any, lang: str = "en") -> str:
    """The value as the metric's kind reads: '157 ms', '32.9 %', '1.2 GiB', '15.43'; N/A when missing. ``lang``:
    the language of a duration's units (the report in Chinese: report.unit.ms)."""
    if is_finite(value) and abs(value) > OUT_OF_RANGE:
        return "(out of range)"
    if metric.kind == "seconds":
        return format_duration(value, lang)
    if metric.kind == "fraction":
        return percent(value)
    if metric.kind == "bytes":
        return format_bytes(value)
    if metric.kind == "text":
        return NA if value is None else str(value)
    if _few_figures(value):
        return ", ".join(format_number(v) for v in value)   # a few figures (each round's): as figures, not 15 digits
    if isinstance(value, (list, dict)) and len(str(value)) > _NESTED_CHARS:
        return f"<{len(value)} {'items' if isinstance(value, list) else 'entries'}, in events.jsonl>"
    return format_number(value)


def _few_figures(value: Any) -> bool:
    """A short list of numbers (each round's figure), said one by one; a longer one is counted."""
    return (isinstance(value, list) and bool(value) and all(is_finite(v) for v in value)
            and len(str(value)) <= _NESTED_CHARS)


def key_figure(key: str, value: Any, lang: str = "en") -> tuple[str, str]:
    """(the key's name without its unit, the number in the unit the key names): ('decode', '91.3 tokens/s') for
    `decode_tokens_per_s`, ('peak memory', '3.0 GiB') for `peak_memory_bytes`; a key naming no unit keeps its
    words and the plain number. For a number (not a bool, a string or a list: the caller says those)."""
    per_s = _PER_S.search(key)
    if per_s:
        name = key[:per_s.start()] + "_" + key[per_s.end():]
        return " ".join(w for w in name.split("_") if w), _in_range(value) or rate(value, f"{per_s.group(1) or ''}/s")
    ms = _MS.search(key)
    if ms:
        name = key[:ms.start()] + "_" + key[ms.end():]
        return " ".join(w for w in name.split("_") if w), _in_range(value) or rate(value, "ms")
    for ending, kind, unit, kept in _KEY_ENDINGS:
        if key.endswith(ending) and len(key) > len(ending) or key == ending.lstrip("_") and unit:
            name = f"{key.removesuffix(ending).replace('_', ' ').strip()} {kept}".strip()
            if kind != "number":
                return name, metric_text(Metric(key, Text(key), kind), value, lang)
            return name, _in_range(value) or (f"{format_number(value)} {unit}" if is_finite(value)
                                              else format_number(value))
    return key.replace("_", " "), _in_range(value) or format_number(value)


def _in_range(value: Any) -> str:
    return "(out of range)" if is_finite(value) and abs(value) > OUT_OF_RANGE else ""


def labelled(metric: Metric, value: Any, lang: str = "en") -> str:
    """A figure follows its label ('time to first token 157 ms', not '157 ms time to first token'), except a rate
    and a figure whose label starts with its unit: those lead with the value ('15.43 tokens/s per sequence (...)',
    '-0.8 % worst drift', '21 ms time to first token (TTFT), p50', '0.39 GB/s read by decoding (...)')."""
    text = metric_text(metric, value)
    # a label that starts with its unit ('% worst drift', 'ms time to first token (TTFT), p50') follows its value
    if (metric.kind == "rate" or metric.label(lang).startswith(("%", "ms ", "GB/s "))) \
            and text not in (NA, "(out of range)"):
        return f"{text} {metric.label(lang)}"
    return f"{metric.label(lang)} {text}"


def result_text(workload: str, metrics: Mapping[str, Any]) -> str:
    """'RESULT: ...': every metric of the result, the spec's labelled ones first, in its order."""
    spec = registry.spec_for(workload)
    known = {m.key: m for m in (*spec.line_metrics, *spec.metrics)}  # the report's label wins over the line's
    order = [m.key for m in spec.metrics] + [m.key for m in spec.line_metrics]
    keys = [k for k in dict.fromkeys(order) if k in metrics] + [k for k in metrics if k not in known]
    bits = []
    for key in keys:
        if key.endswith("_unreliable") and key.removesuffix("_unreliable") in metrics:
            continue  # said beside its figure
        # a key no spec labels: named without its unit, a number in that unit, as "All result metrics" says it
        metric = known.get(key) or Metric(key, Text(key_figure(key, None)[0] or key))
        if key == spec.headline and isinstance(metrics.get("throughput_unit"), str):
            # a job's headline is in the unit its log wrote: 'it/s, throughput the log printed (...)'
            metric = Metric(key, Text(spec.headline_label(unit=metrics["throughput_unit"])), metric.kind)
        if metrics.get(f"{key}_unreliable") is not None:
            bits.append(f"{metric.label.en} unreliable ({metrics[f'{key}_unreliable']})")
        elif key not in known and is_finite(metrics[key]):
            bits.append(" ".join(key_figure(key, metrics[key])).strip())
        elif key not in known and _few_figures(metrics[key]):
            # each in the key's unit, as the report's "All result metrics" says them ('runs 36.99 GB/s, 37.18 GB/s')
            bits.append(f"{key_figure(key, None)[0]} {', '.join(key_figure(key, v)[1] for v in metrics[key])}".strip())
        else:
            bits.append(labelled(metric, metrics[key]))
    return "RESULT: " + "; ".join(bits)


def glance(workload: str, metrics: Mapping[str, Any]) -> list[str]:
    """The headline and the spec's line metrics, each in words: what a glance at a result needs."""
    spec = registry.spec_for(workload)
    bits = []
    if is_finite(metrics.get(spec.headline)):
        unit = metrics.get("throughput_unit") if isinstance(metrics.get("throughput_unit"), str) else None
        bits.append(rate(metrics[spec.headline], spec.headline_label(unit=unit)))
    for metric in spec.line_metrics:
        value = metrics.get(metric.key)
        if is_finite(value):
            bits.append(labelled(metric, value))
        elif value is None and metrics.get(f"{metric.key}_unreliable") is not None:
            bits.append(f"{metric.label.en} unreliable")  # withheld by the workload, its warning says why
    return bits


def glance_text(workload: str, metrics: Mapping[str, Any]) -> str:
    """'RESULT: 2.105 tokens/s per sequence (...); time to first token 1.73 s ...; N more in run.log': the log
    pane's line (every figure would fill the pane: run.log and the report have them all)."""
    bits = glance(workload, metrics)
    if not bits:
        return result_text(workload, metrics)
    more = len(metrics) - len(bits)
    return "RESULT: " + "; ".join(bits) + (f" ({more} more figures in run.log)" if more > 0 else "")


def event_line(event: Any, workload: str | None) -> str:
    """An event's line: a result in words when its workload is known, every other event as it describes itself.

    Printable (`workloads.safe_text`): an event carries text from outside (a file name, a server's error, a run
    directory someone else wrote), and this line goes to the terminal and run.log, where ESC ]0; would retitle
    the window and ESC ]52; write the clipboard."""
    from workloads import protocol
    from workloads.safe_text import printable

    if isinstance(event, protocol.Result) and workload:
        return printable(result_text(workload, event.metrics))
    return printable(event.describe())
