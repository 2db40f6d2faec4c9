"""The current run's state as the launcher shows it: status, progress, the live figure, fallbacks and the result.

Rendered from `tui.workbench.view.run_state.RunState` (UI-free); the launcher pane places it under the fields.
"""

from __future__ import annotations

from rich.text import Text

from workloads.facts.formatting import fixed, format_duration, live_rate, percent
from workloads.facts.missing import NA, is_finite
from tui.workbench.view.run_state import RunState
from tui.workbench import entries
from workloads.safe_text import one_line, printable
from workloads.spec import WorkloadSpec


_STATUS_STYLE = {"running": "bold green", "starting": "yellow", "ok": "green", "failed": "bold red",
                 "stopped": "yellow", "idle": "dim"}


def render_state(state: RunState) -> Text:
    """The state's lines. A run read from disk (or attached to) may be someone else's: its workload name, status,
    unit, fallbacks and result are made printable (`workloads.safe_text`) before they are a Text."""
    spec = entries.spec_for(state.workload)
    text = Text()
    title = spec.title.en if state.workload else "no run yet"
    text.append(one_line(state.status.upper()), style=_STATUS_STYLE.get(state.status, ""))
    text.append(f" {one_line(title)}\n")
    # an ended run has no ETA to give: "ETA N/A" under a finished run read as if something were unknown
    eta = f"  ETA {format_duration(state.eta_s)}" if state.active or state.status == "idle" else ""
    if eta and state.eta_of and state.eta_s is not None:
        eta += f" ({state.eta_of})"
    text.append(f"{printable(_progress(state, spec))}{eta}\n")
    # a command's run (readiness) has no step figures: what it is doing instead
    text.append(printable(one_line(state.doing) if state.doing else _live_figures(state, spec)) + "\n")
    fallbacks = len(state.fallbacks)
    warnings = len(state.warnings)
    text.append(f"fallbacks {fallbacks}", style="bold yellow" if fallbacks else "")
    text.append(f"  warnings {warnings}", style="bold red" if state.cpu_alarm else "yellow" if warnings else "")
    if state.cpu_alarm is not None:
        text.append("\n!! on the CPU: cards NOT used", style="bold red")
    if state.fallbacks:
        text.append(f"\n{one_line(state.fallbacks[-1])}", style="yellow")
    if state.result:
        text.append(printable(_result_glance(state.result, spec)), style="bold")
    return text


def _progress(state: RunState, spec: WorkloadSpec) -> str:
    """'step 4/6  epoch 1/1', 'timed token 16/48': counted as the workload counts, over what it plans."""
    # before the first step of a planned run, "0/N" reads better than "N/A/N"
    done = str(state.step if state.step is not None else (0 if state.total_steps else NA))
    line = f"{spec.progress.en} {done}" + (f"/{state.total_steps}" if state.total_steps else "")
    if state.epoch is not None:
        line += f"  epoch {state.epoch}" + (f"/{state.total_epochs}" if state.total_epochs else "")
    if state.batch is not None:
        line += f"  batch {state.batch[0]}/{state.batch[1]}"
    return line


def _live_figures(state: RunState, spec: WorkloadSpec) -> str:
    """The last step's rate, saying it is that ('37.2 images/s last step'), and the loss where there is one."""
    line = live_rate(state.throughput, state.unit or "")
    if (state.rate_span and "written as seconds per item" in state.rate_span and is_finite(state.throughput)
            and state.throughput > 0 and state.unit):
        # the log wrote s/it: shown as it wrote it (4.87 s/it), as run.log's step line does, not as 0.205 it/s
        line = f"{live_rate(1 / state.throughput)} s/{state.unit.removesuffix('/s')}"
    if state.rate_span and is_finite(state.throughput):
        line += f" {state.rate_span}"
    if spec.has_loss or state.loss is not None:
        line += f"  loss {fixed(state.loss, 4)}"
    return line


def _result_glance(result: dict, spec: WorkloadSpec) -> str:
    """The headline with the words that say which figure it is, then a few more figures as the RESULT line has them."""
    keys = [k for k in _glance(spec) if k in result] or list(result)[:4]
    lines = ""
    if keys[0] == spec.headline:
        unit = result.get("throughput_unit") if isinstance(result.get("throughput_unit"), str) else None
        lines += f"\n{_glance_value(result, keys.pop(0))} {spec.headline_label(unit=unit)}"
    if keys:
        lines += "\n" + "  ".join(_labelled(spec, result, k) for k in keys[:3])
    return lines


def _labelled(spec: WorkloadSpec, result: dict, key: str) -> str:
    """'time to first token 1.72 s': the spec's label and the figure in its unit (a raw `ttft_s=1.72` was shown)."""
    metric = spec.metric(key) or next((m for m in spec.line_metrics if m.key == key), None)
    value = _glance_value(result, key)
    if metric is not None and is_finite(result[key]):
        value = {"seconds": format_duration, "fraction": percent}.get(metric.kind, lambda v: value)(result[key])
    return f"{metric.label.en if metric is not None else key} {value}"


def _glance(spec: WorkloadSpec) -> list[str]:
    """The result figures worth a glance, in this order; the log and run dir hold the rest."""
    return [spec.headline, *(m.key for m in spec.line_metrics), "precision", "dtype"]


def _glance_value(result: dict, key: str) -> str:
    # a figure the workload withheld as unreliable (its ``<key>_unreliable`` twin, with a warning) is not shown
    if result[key] is None and result.get(f"{key}_unreliable") is not None:
        return "unreliable"
    return _short(result[key])


def _short(value) -> str:
    """As the RESULT line of the log above it prints the value (workloads.protocol), N/A for a NaN."""
    if isinstance(value, float):
        return f"{value:.4g}" if is_finite(value) else NA
    return str(value)
