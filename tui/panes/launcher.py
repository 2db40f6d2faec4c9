"""The launcher: one tab per workload with its main parameters editable in place, and the run's state.

The state itself (`tui.run_state.RunState`) is UI-free; this pane only renders it.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.containers import Container, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Button, ContentSwitcher, Input, Label, Select, Static

from tui.formatting import NA, duration, fixed, is_number, live_rate
from tui.launch import Param, defaults, params_for, values_from_args
from tui.run_state import RunState
from workloads import registry


def _field_id(workload: str, key: str) -> str:
    return f"param-{workload}-{key}"


def _widget_for(workload: str, param: Param):
    wid = _field_id(workload, param.key)
    if param.kind in ("choice", "switch"):
        return Select([(c, c) for c in param.choices], value=param.default, allow_blank=False, compact=True,
                      id=wid)
    restrict = r"[0-9]*" if param.kind == "int" else None
    return Input(param.default, placeholder=param.placeholder, restrict=restrict, compact=True, id=wid,
                 select_on_focus=False)


class WorkloadForm(Container):
    """The fields of one workload (Tab goes straight from field to field)."""

    # a grid, not a row container per field: fewer widgets to lay out on every switch
    DEFAULT_CSS = """
    WorkloadForm { height: auto; layout: grid; grid-size: 2; grid-columns: 14 1fr; grid-rows: 1; }
    WorkloadForm > Input, WorkloadForm > Select { width: 1fr; }
    """

    def __init__(self, workload: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workload = workload
        self.built = False
        self.pending: dict[str, str] | None = None  # values set before the fields were mounted

    async def build(self) -> None:
        """Mount the fields: called once the first frame is out (they are most of the screen's widgets)."""
        if self.built:
            return
        params = params_for(self.workload)
        if not params:
            await self.mount(Label("no options: runs with the workload's defaults"))
        widgets = []
        for param in params:
            widgets += [Label(param.label), _widget_for(self.workload, param)]
        await self.mount_all(widgets)
        self.built = True
        if self.pending is not None:
            self.set_values(self.pending)

    def set_values(self, values: dict[str, str]) -> None:
        """Show these values in the fields (a loaded run's settings)."""
        if not self.built:
            self.pending = dict(values)
            return
        for param in params_for(self.workload):
            if param.key not in values:
                continue
            widget = self.query_one(f"#{_field_id(self.workload, param.key)}")
            value = values[param.key]
            if isinstance(widget, Select):
                if value in param.choices:
                    widget.value = value
            else:
                widget.value = value
                if not value and not param.placeholder:
                    widget.placeholder = "(workload default)"  # the run left it to the workload

    def values(self) -> dict[str, str]:
        out = defaults(self.workload)
        if not self.built:
            return out
        for param in params_for(self.workload):
            widget = self.query_one(f"#{_field_id(self.workload, param.key)}")
            value = widget.value
            out[param.key] = "" if value is None or value is Select.BLANK else str(value)
        return out


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


def workload_bar(workloads: list[str], selected: str) -> Text:
    """'1 ResNet-50  2 GPT-2', the selected one marked (reverse video, and '>' without colour); clickable."""
    text = Text()
    for i, name in enumerate(workloads, start=1):
        title = registry.spec_for(name).short_title
        chosen = name == selected
        label = f"{'>' if chosen else ' '}{i} {title} "
        style = Style(reverse=chosen, bold=chosen, dim=not chosen,
                      meta={"@click": f"app.select_workload({i - 1})"})
        text.append(label, style=style)
        text.append(" ")
    return text


class LauncherPane(VerticalScroll, can_focus=False):
    """Workload choice (number keys or a click), its fields, and the current run's state.

    A bar and a `ContentSwitcher` rather than `TabbedContent`: a switch is then one
    layout and one frame, which keeps a key press cheap on a host busy training.
    """

    state: reactive[RunState] = reactive(RunState, always_update=True)

    def __init__(self, workloads: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.workloads = workloads
        self.border_title = "launcher"
        self._selected = workloads[0]

    def compose(self):
        yield Static(workload_bar(self.workloads, self._selected), id="workload-bar")
        with ContentSwitcher(initial=f"form-{self._selected}", id="workload-forms"):
            for name in self.workloads:
                yield WorkloadForm(name, id=f"form-{name}")
        yield Button("start (s)", variant="success", compact=True, id="start-stop")
        yield Static(render_state(RunState()), id="run-state")

    @property
    def selected(self) -> str:
        return self._selected

    def select(self, name: str) -> None:
        if name == self._selected or name not in self.workloads:
            return
        self._selected = name
        self.query_one(ContentSwitcher).current = f"form-{name}"
        self.query_one("#workload-bar", Static).update(workload_bar(self.workloads, name))

    def show_args(self, name: str, args: list[str]) -> None:
        """Fill a workload's fields from a run's arguments."""
        if name in self.workloads:
            self.query_one(f"#form-{name}", WorkloadForm).set_values(values_from_args(name, args))

    def values(self, name: str | None = None) -> dict[str, str]:
        name = name or self.selected
        return self.query_one(f"#form-{name}", WorkloadForm).values()

    async def build(self) -> None:
        for form in self.query(WorkloadForm):
            await form.build()

    def watch_state(self, state: RunState) -> None:
        if self.is_mounted:
            self.query_one("#run-state", Static).update(render_state(state))
