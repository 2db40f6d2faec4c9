"""The launcher's fields: a text field that runs its own editing keys, and the widget for each kind of parameter.

A module of its own, imported when the fields are mounted (just after the first frame, which shows none).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input, Select

from tui.workbench.launch import Param, blank_shows


def field_id(workload: str, key: str) -> str:
    return f"param-{workload}-{key}"


class Field(Input):
    """A launcher field that runs its own editing keys (End, Backspace, Enter...) as it receives them.

    Textual resolves a focused widget's bindings at the app, against whatever is focused by
    then (Textualize/textual#6605): in a burst of keys after a Tab, a Backspace meant for this
    field edited the next one. Run here, each key acts on the field it was sent to, in order.

    Focus selects the value, so a number typed into a pre-filled field replaces it (typing 3 into
    '30' gave '303'); End or an arrow key keeps it for editing. A placeholder wider than the field
    ends in '…' (Input cuts it silently) and is shown whole on the launcher's hint line on focus.
    """

    def __init__(self, value: str, *, placeholder: str, **kwargs) -> None:
        super().__init__(value, placeholder=placeholder, **kwargs)
        self.full_placeholder = placeholder

    def show_placeholder(self, whole: str) -> None:
        self.full_placeholder = whole
        width = self.content_region.width
        self.placeholder = whole if not width or len(whole) <= width else whole[:max(width - 1, 0)] + "…"
        self.tooltip = whole

    def on_resize(self) -> None:
        self.show_placeholder(self.full_placeholder)

    async def _on_key(self, event: events.Key) -> None:
        binding = next((b for b in self._bindings.key_to_bindings.get(event.key, ()) if not b.priority), None)
        if binding is None:
            return  # printable keys: Input's own handler, next in the MRO
        event.stop()
        event.prevent_default()
        await self.run_action(binding.action)


def widget_for(workload: str, param: Param, default: str | None = None) -> Input | Select:
    """The field of one parameter: a choice or a switch is a Select, any other an `Input` (digits only for an int).
    ``default``: its value, when not the spec's (sized for the CPU)."""
    wid = field_id(workload, param.key)
    default = param.default if default is None else default
    if param.kind in ("choice", "switch"):
        return Select([(c, c) for c in param.choices], value=default, allow_blank=False, compact=True, id=wid)
    restrict = r"[0-9]*" if param.kind == "int" else None
    return Field(default, placeholder=blank_shows(param, default), restrict=restrict, compact=True, id=wid)
