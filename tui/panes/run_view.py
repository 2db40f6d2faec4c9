"""The current run's state as the launcher shows it: status, progress, the live figure, fallbacks and the result.

Rendered from `tui.run_state.RunState` (UI-free); the launcher pane places it under the fields.
"""

from __future__ import annotations

from rich.text import Text

from tui.formatting import NA, duration, fixed, is_number, live_rate
from tui.run_state import RunState
from workloads import registry


_STATUS_STYLE = {"running": "bold green", "starting": "yellow", "ok": "green", "failed": "bold red",
                 "stopped": "yellow", "idle": "dim"}


def render_state(state: RunState) -> Text:
    text = Text()
    title = registry.spec_for(state.workload).title.en if state.workload else "no run yet"
    text.append(f"{state.status.upper()}", style=_STATUS_STYLE.get(state.status, ""))
    text.append(f" {title}\n")
    # before the first step of a planned run, "0/N" reads better than "N/A/N"
    step = str(state.step if state.step is not None else (0 if state.total_steps else NA))
    if state.total_steps:
        step += f"/{state.total_steps}"
    epoch = "" if state.epoch is None else f"  epoch {state.epoch}"
    text.append(f"step {step}{epoch}  ETA {duration(state.eta_s)}\n")
    text.append(f"{live_rate(state.throughput, state.unit or '')}  loss {fixed(state.loss, 4)}\n")
    fallbacks = len(state.fallbacks)
    warnings = len(state.warnings)
    text.append(f"fallbacks {fallbacks}", style="bold yellow" if fallbacks else "")
    text.append(f"  warnings {warnings}", style="bold red" if state.cpu_alarm else "yellow" if warnings else "")
    if state.cpu_alarm is not None:
        text.append("\n!! on the CPU: cards NOT used", style="bold red")
    if state.fallbacks:
        text.append(f"\n{state.fallbacks[-1]}", style="yellow")
    if state.result:
        keys = [k for k in _glance(state.workload) if k in state.result] or list(state.result)[:4]
        body = "  ".join(f"{k}={_glance_value(state.result, k)}" for k in keys[:4])
        text.append(f"\n{body}", style="bold")
    return text


def _glance(workload: str) -> list[str]:
    """The result figures worth a glance, in this order; the log and run dir hold the rest."""
    spec = registry.spec_for(workload)
    return [spec.headline, *(m.key for m in spec.line_metrics), "precision", "dtype"]


def _glance_value(result: dict, key: str) -> str:
    # a figure the workload withheld as unreliable (its ``<key>_unreliable`` twin, with a warning) is not shown
    if result[key] is None and result.get(f"{key}_unreliable") is not None:
        return "unreliable"
    return _short(result[key])


def _short(value) -> str:
    """As the RESULT line of the log above it prints the value (workloads.protocol), N/A for a NaN."""
    if isinstance(value, float):
        return f"{value:.4g}" if is_number(value) else NA
    return str(value)
