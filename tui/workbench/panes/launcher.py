"""The launcher: one tab per workload with its main parameters editable in place, and the run's state.

The state itself (`tui.workbench.view.run_state.RunState`) is UI-free; this pane only renders it.
"""

from __future__ import annotations

from typing import Callable

from rich.style import Style
from rich.text import Text
from textual import events
from textual.containers import Container, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Button, ContentSwitcher, Static

from tui.workbench.launch import BadValue, Param, blank_shows, defaults, params_for, start_question, values_from_args
from tui.workbench.panes.keys import workload_key
from tui.workbench.panes.run_view import render_state
from tui.workbench.sizing import device_is_cpu
from tui.workbench.view.run_state import RunState
from tui.workbench import entries
from workloads.safe_text import printable


class WorkloadForm(Container):
    """The fields of one workload (Tab goes straight from field to field)."""

    # a grid, not a row container per field: fewer widgets to lay out on every switch; the label column is
    # as wide as the form's longest label and a space, so no label runs into its value ('per-op timeout60')
    DEFAULT_CSS = """
    WorkloadForm { height: auto; layout: grid; grid-size: 2; grid-columns: 14 1fr; grid-rows: 1; }
    WorkloadForm > Input, WorkloadForm > Select { width: 1fr; }
    """

    def __init__(self, workload: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workload = workload
        self.built = False
        self.pending: dict[str, str] | None = None  # values set before the fields were mounted
        self.on_cpu = False
        self.shown = defaults(workload)   # what an untouched field holds: the defaults for the device (`follow`)

    async def build(self) -> None:
        """Mount the fields: called once the first frame is out (they are most of the screen's widgets)."""
        if self.built:
            return
        from textual.widgets import Label

        from tui.workbench.panes.fields import widget_for

        params = params_for(self.workload)
        if not params:
            await self.mount(Label("no options: runs with the workload's defaults"))
        else:
            self.styles.grid_columns = f"{label_width(params)} 1fr"
        widgets = []
        for param in params:
            widgets += [Label(param.label), widget_for(self.workload, param, self.shown[param.key])]
        await self.mount_all(widgets)
        self.built = True
        if self.pending is not None:
            self.set_values(self.pending)

    def set_values(self, values: dict[str, str]) -> None:
        """Show these values in the fields (a loaded run's settings)."""
        if not self.built:
            self.pending = dict(values)
            return
        from textual.widgets import Select

        from tui.workbench.panes.fields import field_id

        for param in params_for(self.workload):
            if param.key not in values:
                continue
            widget = self.query_one(f"#{field_id(self.workload, param.key)}")
            value = values[param.key]
            if isinstance(widget, Select):
                if value in param.choices:
                    widget.value = value
            else:
                widget.value = value
                # a run that left it out had the workload's own default, whatever this field's is
                widget.show_placeholder("(workload default)" if not value and not param.placeholder
                                        else blank_shows(param, self.shown[param.key]))

    def follow(self, on_cpu: bool) -> None:
        """Size the fields for the device: one still holding the last defaults takes the new ones, an edited one
        keeps its value (and an empty one shows, and runs, the new default)."""
        if on_cpu == self.on_cpu:
            return
        old, new = self.shown, defaults(self.workload, on_cpu)
        self.on_cpu, self.shown = on_cpu, new
        if not self.built:
            return   # build() makes them with these
        from tui.workbench.panes.fields import Field, field_id

        for param in params_for(self.workload):
            widget = self.query_one(f"#{field_id(self.workload, param.key)}")
            if new[param.key] != old[param.key] and self._text(widget) == old[param.key]:
                widget.value = new[param.key]
            if isinstance(widget, Field) and widget.full_placeholder == blank_shows(param, old[param.key]):
                widget.show_placeholder(blank_shows(param, new[param.key]))

    @staticmethod
    def _text(widget) -> str:
        from textual.widgets import Select

        value = widget.value
        return "" if value is None or value is Select.BLANK else str(value)

    def value(self, key: str) -> str:
        """One field's value as typed ("" when empty, or when the workload has no such field)."""
        if key not in self.shown:
            return ""
        if not self.built:
            return (self.pending or self.shown).get(key, "")
        from tui.workbench.panes.fields import field_id

        return self._text(self.query_one(f"#{field_id(self.workload, key)}"))

    def values(self) -> dict[str, str]:
        """Every field's value; an empty one without a placeholder runs the default it shows, the device's."""
        out = dict(self.shown)
        if not self.built:
            return out
        for param in params_for(self.workload):
            out[param.key] = self.value(param.key) or ("" if param.placeholder else self.shown[param.key])
        return out


def label_width(params: list[Param]) -> int:
    """The label column of a form: its longest label and one space."""
    return max(len(p.label) for p in params) + 1


def workload_bar(workloads: list[str], selected: str, width: int | None = None) -> Text:
    """'1 ResNet-50  2 GPT-2', the selected one marked (reverse video, and '>' without colour); clickable.

    Lines break between workloads, never inside one's label, so every key keeps its name at any width.
    """
    text = Text()
    used = 0
    for i, name in enumerate(workloads, start=1):
        title = entries.spec_for(name).short_title
        chosen = name == selected
        key = workload_key(i - 1) or "·"   # past the tenth: no key, a click or the palette chooses it
        label = f"{'>' if chosen else ' '}{key} {title} "
        if width and len(label) > width:  # narrower than one label: its key and as much of the name as fits
            label = label[:width - 1] + "…"
        if width and used and used + len(label) > width:
            text.append("\n")
            used = 0
        style = Style(reverse=chosen, bold=chosen, dim=not chosen,
                      meta={"@click": f"app.select_workload({i - 1})"})
        text.append(label, style=style)
        used += len(label)
        if not width or used < width:
            text.append(" ")
            used += 1
    return text


class WorkloadBar(Static):
    """The workload bar, laid out for the width it gets."""

    def __init__(self, workloads: list[str], selected: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workloads = workloads
        self.selected = selected

    def choose(self, name: str) -> None:
        self.selected = name
        self.refresh(layout=True)

    def render(self) -> Text:
        return workload_bar(self.workloads, self.selected, self.content_region.width or None)

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(workload_bar(self.workloads, self.selected, width).plain.split("\n"))


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
        # the workloads' forms, made at their first use, and their switcher: build() mounts them just after the
        # first frame, in which an empty form takes no row (the fields come with build() too) while each widget
        # costs the first frame its making and styling
        self._forms: dict[str, WorkloadForm] = {}
        self._switcher: ContentSwitcher | None = None
        self.torch_sees: bool | None = None   # does torch see an accelerator (None: not known yet)

    def compose(self):
        yield WorkloadBar(self.workloads, self._selected, id="workload-bar")
        yield Static("", id="field-hint")
        yield Button("start (s)", variant="success", compact=True, id="start-stop")
        yield Static(render_state(RunState()), id="run-state")

    def form(self, name: str) -> WorkloadForm:
        """The workload's form, mounted or not (made at the first call)."""
        if name not in self._forms:
            self._forms[name] = WorkloadForm(name, id=f"form-{name}")
        return self._forms[name]

    @property
    def selected(self) -> str:
        return self._selected

    def select(self, name: str) -> None:
        if name == self._selected or name not in self.workloads:
            return
        self._selected = name
        if self._switcher is not None:  # else build() shows it
            self._switcher.current = f"form-{name}"
        self.query_one("#workload-bar", WorkloadBar).choose(name)

    def show_args(self, name: str, args: list[str]) -> None:
        """Fill a workload's fields from a run's arguments (its config.json's: printable, as anything from a run
        directory is on its way to the screen; newlines kept, since a command's script may hold them)."""
        if name in self.workloads:
            self.form(name).set_values(values_from_args(name, [printable(a) for a in args]))

    def values(self, name: str | None = None) -> dict[str, str]:
        return self.form(name or self.selected).values()

    def on_cpu(self, name: str) -> bool | None:
        """Would the workload's run land on the CPU: its device field, else torch's word (None: not known)."""
        return device_is_cpu(self.form(name).value("device"), self.torch_sees)

    def follow_device(self, torch_sees: bool | None) -> None:
        """torch's word on the accelerator: each form's defaults follow where its run would land."""
        if torch_sees == self.torch_sees:
            return
        self.torch_sees = torch_sees
        for name in self.workloads:
            self.form(name).follow(bool(self.on_cpu(name)))

    def on_input_changed(self, event) -> None:
        # a device field changed: its form's defaults follow it ('cpu', or back to auto)
        from tui.workbench.panes.fields import field_id   # loaded with the fields: one of them changed

        for name in self.workloads:
            if event.input.id == field_id(name, "device"):
                self.form(name).follow(bool(self.on_cpu(name)))

    def start_when_sure(self, start: Callable[[], object]) -> None:
        """Call ``start`` now, or once the user confirms values far above the usual (a burst of keys gone astray) or
        a run estimated to take more than ten minutes."""
        name = self.selected
        try:
            question = start_question(name, self.values(name), self.on_cpu(name))
        except BadValue:
            question = None  # start() reports the bad value in its one line
        if question is None:
            start()
            return
        from tui.workbench.panes.confirm import Confirm

        self.app.push_screen(Confirm(question, "Start anyway", "Edit the fields"), lambda yes: start() if yes else None)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        from tui.workbench.panes.fields import Field   # loaded with the fields: something in them has the focus

        hint = self.query_one("#field-hint", Static)
        field = event.widget
        if isinstance(field, Field) and field.placeholder != field.full_placeholder:
            hint.update(Text(field.full_placeholder, style="dim"))
            hint.display = True
            # on a small screen the fields fill the launcher (the bar takes a line per few entries): the hint is
            # scrolled into view, as the focused field is
            self.call_after_refresh(hint.scroll_visible, animate=False)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.query_one("#field-hint", Static).display = False

    async def build(self) -> None:
        """Mount the forms (the selected one shown) under the workload bar, then their fields."""
        if not self.is_attached:
            return   # the app closed at its first frame (a timed start, a test): nothing to show them in
        forms = [self.form(name) for name in self.workloads]
        if self._switcher is None:
            switcher = ContentSwitcher(*forms, initial=f"form-{self._selected}", id="workload-forms")
            await self.mount(switcher, before=self.query_one("#field-hint"))
            self._switcher = switcher
        for form in forms:
            await form.build()

    def watch_state(self, state: RunState) -> None:
        if self.is_mounted:
            self.query_one("#run-state", Static).update(render_state(state))
