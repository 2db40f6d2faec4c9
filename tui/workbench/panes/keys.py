"""The workbench's keys: its bindings, a number key per workload, the rows of the list of keys (`?`), and the command
palette's entries."""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from textual.app import SystemCommand
from textual.binding import ActiveBinding, Binding, BindingsMap

from tui.i18n import say_or
from tui.workbench import entries

# Short labels in a compact footer: at 80 columns it holds every key with its label (issue 22.12: b and D
# had no room, ? did nothing). The palette's own binding, declared here, is labelled "menu".
BINDINGS = [
    Binding("s", "start_stop", "run"),
    Binding("D", "start_detached", "detach"),
    Binding("r", "live_runs", "runs"),
    Binding("p", "cycle_plots", "plot"),
    Binding("d", "doctor", "doctor"),
    Binding("e", "export", "export"),
    Binding("b", "backup", "backup"),
    # ? is where people look for help: the list of every key of the screen (the palette is a search, ^p)
    Binding("question_mark", "show_keys", "keys", key_display="?"),
    Binding("q", "quit", "quit"),
    Binding("escape", "leave_field", "leave field", show=False),
    # Tab moves focus as the key arrives, before the keys after it are handed to a field: as Textual's
    # (non-priority) screen binding it runs only once the field has processed what came before, so in
    # a burst (a paste, a laggy SSH link) the following keys went to the field being left
    Binding("tab", "app.focus_next", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", show=False, priority=True),
    # the footer's compact layout at 80 columns holds every key above; ^p searches every action by name
    Binding("ctrl+p", "command_palette", "menu", show=False, priority=True, tooltip="every action, with its key"),
]


# the number row, in its order: ten workloads have a key each (0 is the tenth, as on the keyboard)
WORKLOAD_KEYS = "1234567890"


def workload_key(index: int) -> str | None:
    """The key that chooses the workload at ``index`` (0-based); None past the tenth."""
    return WORKLOAD_KEYS[index] if 0 <= index < len(WORKLOAD_KEYS) else None


def key_span(count: int) -> str:
    """'1-6', or '0-9' once the tenth workload has key 0."""
    count = min(count, len(WORKLOAD_KEYS))
    return "0-9" if count == len(WORKLOAD_KEYS) else "1" if count == 1 else f"1-{count}"


def with_workload_keys(names: Sequence[str], bindings: BindingsMap) -> BindingsMap:
    """Keys 1-9 and 0 choose a workload. The footer shows them as one entry ('1-6 select'), first, so a narrow
    terminal still shows every key: the launcher's bar above the fields names each workload beside its key."""
    out = BindingsMap()
    span = key_span(len(names))
    for i, name in enumerate(names[:len(WORKLOAD_KEYS)]):
        out.bind(WORKLOAD_KEYS[i], f"select_workload({i})", "select" if i == 0 else entries.spec_for(name).short_title,
                 show=i == 0, key_display=span if i == 0 else None)
    for key, keyed in bindings.key_to_bindings.items():
        out.key_to_bindings.setdefault(key, []).extend(keyed)
    return out


def workload_rows(names: Sequence[str]) -> list[tuple[str, str]]:
    """(key, workload) for each workload that has a number key, as the launcher's bar names it: ('1', 'ResNet-50')."""
    return [(WORKLOAD_KEYS[i], entries.spec_for(name).short_title) for i, name in enumerate(names[:len(WORKLOAD_KEYS)])]


def action_rows(app: Any, active: Mapping[str, ActiveBinding]) -> list[tuple[str, str]]:
    """(keys, what they do) for each action bound on a screen (its ``active_bindings``), in the order bound; the
    workload keys are `workload_rows`'. An action is said from the catalogue (``workbench.key.<action>``), else by
    its binding's own description (Textual's, or a widget's), so a key bound later is listed too."""
    keys: dict[str, list[str]] = {}
    words: dict[str, str] = {}
    for active_binding in active.values():
        binding = active_binding.binding
        action = binding.action.rpartition(".")[2]   # 'app.focus_next' and 'focus_next' are one action
        if action.startswith("select_workload("):
            continue
        shown = app.get_key_display(binding)
        if shown not in keys.setdefault(action, []):
            keys[action].append(shown)
        words.setdefault(action, say_or(f"workbench.key.{action}", "en", binding.description or action))
    # the workbench's own keys first, in the order the footer shows them; then Textual's and the focused widget's
    order = {binding.action.rpartition(".")[2]: i for i, binding in enumerate(BINDINGS)}
    ordered = sorted(keys, key=lambda action: order.get(action, len(order)))
    return [(" ".join(sorted(keys[action], key=len)), words[action]) for action in ordered]


def system_commands(app: Any) -> Iterator[SystemCommand]:
    """The workbench's own entries in the command palette (ctrl+p), each naming its key."""
    for i, name in enumerate(app.workload_names):
        title = entries.spec_for(name).title.en
        key = workload_key(i)   # past the tenth (readiness): no key, here or a click on the launcher's bar
        yield SystemCommand(f"Select {title}", f"key {key}" if key else "the launcher's bar",
                            lambda i=i: app.action_select_workload(i))
    yield SystemCommand("Start or stop the workload", "key s", app.action_start_stop)
    yield SystemCommand("Export the report bundle", "key e", app.action_export)
    yield SystemCommand("Doctor", "key d: check the driver, management CLI, PyTorch and the device",
                        app.action_doctor)
    yield SystemCommand("Cycle the plots", "key p: all plots, or one at a time", app.action_cycle_plots)
    yield SystemCommand("Runs in progress", "key r: attach to one (detached, or in another terminal), or stop it",
                        app.action_live_runs)
    yield SystemCommand("Start detached", "key D: the workload goes on after the workbench quits",
                        app.action_start_detached)
    yield SystemCommand("Back up now", "key b: runs, checkpoints and report bundles to the destination kept by "
                        "`cardbench trial --backup-dest`", app.action_backup)
