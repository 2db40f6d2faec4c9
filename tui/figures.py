"""How a result's figures read wherever they are printed: run.log, the log pane, `cardbench run`, the suite's lines.

One place turns a result's metrics into words, from the workload's typed result record (`workloads.result_record`): each
figure by its label and its unit's kind (a rate with its unit, seconds as a duration, a fraction as a percentage,
bytes in binary units), so `RESULT: 15.43 tokens/s per sequence (decode, median after warm-up); time to first token
157 ms` reads as the report's table does, never `tokens_per_s=15.43, ttft_s=0.157`. A key the record does not declare
(a run from another version) is said as written, its number plain: a key's spelling never decides a unit.
The report's tables format by the same :func:`metric_text`.
"""

from __future__ import annotations

from typing import Any, Mapping

from workloads.facts.formatting import format_bytes, format_duration, format_number, percent, rate
from workloads.facts.missing import NA, is_finite
from workloads.facts.warmup import MIN_MEASURED_STEPS, measured_enough
from workloads import registry
from workloads.catalogue import say
from workloads.result_record import Figure
from workloads.spec import Text

# past this a figure is no measurement (a child that printed 10**400, or 1e308): said as such, not printed whole
OUT_OF_RANGE = 1e18
# a nested value (a table, a list of failures) is counted in the line: events.jsonl keeps it whole
_NESTED_CHARS = 160


def metric_text(metric: Figure, value: Any, lang: str = "en") -> str:
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
    if isinstance(value, bool):
        return say("report.yes" if value else "report.no", lang)   # never Python's True/False
    if metric.kind == "text":
        return NA if value is None else str(value)
    if metric.kind == "table" and isinstance(value, (list, dict)) and len(str(value)) <= _NESTED_CHARS:
        return _few_words(value, lang)
    if _few_figures(value):
        return ", ".join(format_number(v) for v in value)   # a few figures (each round's): as figures, not 15 digits
    if isinstance(value, (list, dict)) and len(str(value)) > _NESTED_CHARS:
        return f"<{len(value)} {'items' if isinstance(value, list) else 'entries'}, in events.jsonl>"
    return format_number(value)


def _few_words(value: list | dict, lang: str) -> str:
    """A short nested figure as words: notes joined ('a; b'), a mapping as 'key: value' pairs, nothing as 'none'
    (opscan's `{'fp32': 'usable: every recorded op ok'}` and `[]` were printed as Python wrote them)."""
    if not value:
        return say("report.none", lang)
    items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
    return "; ".join(_word(v, lang) if k is None else f"{k}: {_word(v, lang)}" for k, v in items)


def _word(value: Any, lang: str) -> str:
    if isinstance(value, bool):
        return say("report.yes" if value else "report.no", lang)
    if isinstance(value, dict) and not any(isinstance(v, (list, dict)) for v in value.values()):
        # a row of a nested table (an op the fallback check names): its fields, not its count of fields ('6')
        return "(" + ", ".join(f"{k}: {_word(v, lang)}" for k, v in value.items()) + ")"
    if isinstance(value, (list, dict)):
        return str(len(value))   # deeper still: counted, events.jsonl has it whole
    return str(value) if isinstance(value, str) else format_number(value)


def _few_figures(value: Any) -> bool:
    """A short list of numbers (each round's figure), said one by one; a longer one is counted."""
    return (isinstance(value, list) and bool(value) and all(is_finite(v) for v in value)
            and len(str(value)) <= _NESTED_CHARS)


def _in_range(value: Any) -> str:
    return "(out of range)" if is_finite(value) and abs(value) > OUT_OF_RANGE else ""


def labelled(metric: Figure, value: Any, lang: str = "en", *, short: bool = False) -> str:
    """A figure follows its label ('time to first token 157 ms', not '157 ms time to first token'), except a rate
    and a figure whose label starts with its unit: those lead with the value ('15.43 tokens/s per sequence (...)',
    '-0.8 % worst drift', '21 ms time to first token (TTFT), p50', '0.39 GB/s read by decoding (...)')."""
    text = metric_text(metric, value)
    label = (metric.short or metric.label)(lang) if short else metric.label(lang)
    # a label that starts with its unit ('% worst drift', 'ms time to first token (TTFT), p50') follows its value
    if (metric.kind == "rate" or (metric.unit and label.startswith(metric.unit + " "))) \
            and text not in (NA, "(out of range)"):
        return f"{text} {label}"
    return f"{label} {text}"


def plain(key: str, value: Any) -> str:
    """A figure no record declares (a run from another version): its key as written and its value unformatted."""
    if _few_figures(value):
        return f"{key} {', '.join(format_number(v) for v in value)}"
    return f"{key} {_in_range(value) or format_number(value)}"


def result_text(workload: str, metrics: Mapping[str, Any]) -> str:
    """'RESULT: ...': every figure of the result, the report table's first, in its order, then the glance's, then
    the rest as the workload gave them; each by its record's label and unit. A plan (a result that timed nothing,
    whose record has a PLAN_LINE and a table) says only its plan line (:func:`plan_text`)."""
    if _is_plan(workload, metrics):
        return plan_text(workload, metrics)
    return "RESULT: " + "; ".join(result_bits(workload, metrics))


def _is_plan(workload: str, metrics: Mapping[str, Any]) -> bool:
    """A result that timed nothing, whose record has a PLAN_LINE and a table (--fit-only)."""
    spec = registry.spec_for(workload)
    return bool(spec.result.PLAN_LINE) and spec.report_table is not None and not spec.result.timed(metrics)


def result_bits(workload: str, metrics: Mapping[str, Any]) -> list[str]:
    """Each figure of a timed result in words, in :func:`result_text`'s order."""
    spec = registry.spec_for(workload)
    order = [m.key for m in spec.metrics] + [m.key for m in spec.line_metrics]
    keys = [k for k in dict.fromkeys(order) if k in metrics] + [k for k in metrics if k not in order]
    bits = []
    for key in keys:
        if key.endswith("_unreliable") and key.removesuffix("_unreliable") in metrics:
            continue  # said beside its figure
        metric = spec.metric(key)
        if metric is None:
            bits.append(plain(key, metrics[key]))
            continue
        if key == spec.headline and isinstance(metrics.get("throughput_unit"), str):
            # a job's headline is in the unit its log wrote: 'it/s, throughput the log printed (...)'
            metric = Figure(key, Text(spec.headline_label(unit=metrics["throughput_unit"])), metric.unit)
        if key == spec.headline and _too_few_steps(metrics):
            # the report's rule (tui.report.summary: too_few_steps): a median of fewer measured steps is no figure; the
            # terminal said "16.39 tokens/s" where the report of the same run said "not measured"
            bits.append(f"{_not_measured(metric.label.en, metrics)} ({format_number(metrics[key])})")
        elif metrics.get(f"{key}_unreliable") is not None:
            # the withheld value, plain (generate's is a ratio over 1, not a share): its warning says why
            withheld = metrics[f"{key}_unreliable"]
            said = format_number(withheld) if is_finite(withheld) else str(withheld)
            bits.append(f"{metric.label.en} unreliable ({said})")
        else:
            bits.append(labelled(metric, metrics[key]))
    return bits


def _too_few_steps(metrics: Mapping[str, Any]) -> bool:
    """A result that counts its steps after warm-up (resnet50's, finetune's) and has fewer than a figure needs."""
    counted = metrics.get("steps_counted")
    return isinstance(counted, int) and not isinstance(counted, bool) and not measured_enough(counted)


def _not_measured(label: str, metrics: Mapping[str, Any]) -> str:
    """'<label> not measured: 1 step(s) after warm-up, fewer than the 3 a figure needs': the report's words."""
    return f"{label} " + say("report.too_few_steps", "en", n=metrics["steps_counted"], needed=MIN_MEASURED_STEPS)


def plan_text(workload: str, metrics: Mapping[str, Any]) -> str:
    """'RESULT: model tiny; ...; a plan, nothing timed: ...': a result that timed nothing (--fit-only) says its
    record's PLAN_LINE figures and leaves the rest to the table printed with it."""
    record = registry.spec_for(workload).result
    bits = [labelled(record.figure(key), metrics[key]) for key in record.PLAN_LINE
            if metrics.get(key) is not None and record.figure(key) is not None]
    return "RESULT: " + "; ".join(bits + [say("report.result_plan", "en")])


def glance(workload: str, metrics: Mapping[str, Any]) -> list[str]:
    """The headline and the spec's line metrics, each in words: what a glance at a result needs."""
    spec = registry.spec_for(workload)
    bits = []
    if is_finite(metrics.get(spec.headline)) and _too_few_steps(metrics):
        bits.append(_not_measured(spec.headline_label(), metrics))
    elif is_finite(metrics.get(spec.headline)):
        unit = metrics.get("throughput_unit") if isinstance(metrics.get("throughput_unit"), str) else None
        bits.append(rate(metrics[spec.headline], spec.headline_label(unit=unit)))
    for metric in spec.line_metrics:
        value = metrics.get(metric.key)
        if is_finite(value):
            bits.append(labelled(metric, value, short=True))
        elif value is None and metrics.get(f"{metric.key}_unreliable") is not None:
            bits.append(f"{(metric.short or metric.label).en} unreliable")  # withheld by the workload, its warning says why
    return bits


def glance_text(workload: str, metrics: Mapping[str, Any]) -> str:
    """'RESULT: 2.105 tokens/s per sequence (...); time to first token 1.73 s ...; N more in run.log': the log
    pane's line (every figure would fill the pane: run.log and the report have them all)."""
    bits = glance(workload, metrics)
    if not bits:
        return result_text(workload, metrics)
    more = len(metrics) - len(bits)
    return "RESULT: " + "; ".join(bits) + (_MORE.format(more) if more > 0 else "")


# a RESULT line longer than this on the terminal keeps its leading figures (llm's every figure made 2,939
# characters); run.log keeps the whole line
TERMINAL_RESULT_CHARS = 480
_MORE = " ({} more figures in run.log)"


def terminal_result_text(workload: str, metrics: Mapping[str, Any]) -> str:
    """`cardbench run`'s RESULT line: every figure (:func:`result_text`) when it is short, else its leading figures
    (the answer first, as the whole line has it: serve's "263 requests/s holds the SLO") that fit, and how many more
    run.log holds. Printable, as :func:`event_line`."""
    from workloads.safe_text import printable

    if _is_plan(workload, metrics):
        return printable(plan_text(workload, metrics))
    bits = result_bits(workload, metrics)
    line = "RESULT: " + "; ".join(bits)
    if len(line) <= TERMINAL_RESULT_CHARS:
        return printable(line)
    room = TERMINAL_RESULT_CHARS - len(_MORE.format(len(bits)))
    kept = 1
    while kept < len(bits) and len("RESULT: " + "; ".join(bits[:kept + 1])) <= room:
        kept += 1
    return printable("RESULT: " + "; ".join(bits[:kept]) + _MORE.format(len(bits) - kept))


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
