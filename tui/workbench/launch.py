"""What the launcher offers, UI-free: each workload's main parameters and the argv they make.

The launcher shows these as editable fields; :func:`build_args` turns the
field values into the arguments of ``python -m workloads.<name>``, or says in
one line which value is wrong. An empty field runs what it shows as its
placeholder (`blank_shows`): the field's default, or, where the spec gives a
placeholder ("no cap", "auto"), nothing, so the workload's own default applies.

A value far above the usual (`unusual`) is not refused but asked about: keys
typed in one burst (a paste, a laggy SSH link) can land in the next field, since
Textual handles a printable key and a binding such as Tab on separate paths
(Textualize/textual#6605), and `epochs 13064` is then one keystroke from a week
of training.

The defaults follow the device (`defaults` with ``on_cpu``: the headless suite's CPU arguments, from
`tui.workbench.sizing`), and a run its workload estimates above ten minutes is asked about the same way.
"""

from __future__ import annotations

import shlex

from tui.workbench.sizing import cpu_values, long_run
from tui.workbench import entries
from workloads.spec import Param

# with no bound in the spec (Param.max), a number this many times its field's default is asked about
UNUSUAL_FACTOR = 100


class BadValue(ValueError):
    """A launcher field holds a value the workload would refuse; the message is one line."""


def params_for(workload: str) -> tuple[Param, ...]:
    """The fields of a workload, from its spec; an unregistered one has none."""
    return entries.spec_for(workload).params


def defaults(workload: str, on_cpu: bool = False) -> dict[str, str]:
    """The fields' values before anyone edits them; ``on_cpu``: sized for the CPU, as the headless suite runs there."""
    return {p.key: p.default for p in params_for(workload)} | (cpu_values(workload) if on_cpu else {})


def blank_shows(param: Param, default: str | None = None) -> str:
    """The placeholder of an empty field: what an empty field runs (``default``: the field's, when not the spec's)."""
    if param.placeholder:
        return param.placeholder
    default = param.default if default is None else default
    return f"{default} (default)" if default else "(workload default)"


def _value(param: Param, values: dict[str, str]) -> str:
    value = str(values.get(param.key) or "").strip()
    if not value and not param.placeholder:
        return param.default.strip()  # what the empty field shows (`blank_shows`) is what runs
    return value


def build_args(workload: str, values: dict[str, str]) -> list[str]:
    """Arguments for the workload from field values; raise `BadValue` on the first bad one."""
    args: list[str] = []
    for param in params_for(workload):
        value = _value(param, values)
        if not value or value in param.omit:
            continue
        if param.kind == "int":
            try:
                number = int(value)
            except ValueError:
                raise BadValue(f"{param.label}: {value!r} is not a whole number") from None
            if number <= 0:
                raise BadValue(f"{param.label}: must be positive, not {number}")
            value = str(number)
        elif param.kind in ("choice", "switch") and value not in param.choices:
            raise BadValue(f"{param.label}: {value!r} is not one of {', '.join(param.choices)}")
        if param.kind == "switch":
            args += [param.flag] if value == "on" else []
            continue
        args += [param.flag, value]
    return args


def bound_of(param: Param) -> int | None:
    """The largest usual value of a whole-number field: the spec's ``max`` where it declares one."""
    declared = getattr(param, "max", None)  # Param.max: not every spec version has it
    if declared:
        return int(declared)
    try:
        return int(param.default) * UNUSUAL_FACTOR if param.kind == "int" and int(param.default) > 0 else None
    except ValueError:
        return None


def unusual(workload: str, values: dict[str, str]) -> list[str]:
    """One line per whole-number value above its usual bound ('epochs: 13064, above the usual 100')."""
    lines = []
    for param in params_for(workload):
        bound = bound_of(param)
        value = _value(param, values)
        if bound is None or not value.isdigit() or int(value) <= bound:
            continue
        lines.append(f"{param.label}: {int(value)}, above the usual {bound}")
    return lines


def start_question(workload: str, values: dict[str, str], on_cpu: bool | None = None) -> str | None:
    """What to ask before starting with unusual values or a run estimated long on ``on_cpu`` (None: the device is
    not known), with the whole command line; None: start at once.

    Valid values only: a value `build_args` refuses is its one-line error, not a question.
    """
    lines = unusual(workload, values)
    args = build_args(workload, values)
    long = long_run(workload, args, on_cpu)
    if not lines and long is None:
        return None
    # as a shell would read it back: a value with a space or a quote is one argument, and is shown as one
    command = shlex.join(["cardbench", "run", workload, *args])
    stray = ["(keys typed in one burst can land in the next field: check each value)"] if lines else []
    return "\n".join([*lines, *([long] if long else []), "", f"this would run: {command}", *stray])


def values_from_args(workload: str, args: list[str]) -> dict[str, str]:
    """Field values for a run's arguments (the inverse of `build_args`); options it has no field for are ignored."""
    values = defaults(workload)
    by_flag = {p.flag: p for p in params_for(workload)}
    for param in params_for(workload):
        if param.kind == "switch":
            values[param.key] = "off"
        elif param.omit:
            values[param.key] = param.omit[0]
        elif param.kind == "int":
            values[param.key] = ""  # absent from the run: the workload's own default applied
    items = list(args)
    for i, item in enumerate(items):
        flag, _, inline = item.partition("=")
        param = by_flag.get(flag)
        if param is None:
            continue
        if param.kind == "switch":
            values[param.key] = "on"
        elif inline or i + 1 < len(items):
            values[param.key] = inline or items[i + 1]
    return values


def total_steps(workload: str, args: list[str], config: dict | None = None) -> int | None:
    """How many step numbers the run will count up to, when it can be known (for the ETA); else None.

    The workload's spec knows: from its start config once there is one, else from the arguments.
    """
    return entries.spec_for(workload).steps_planned(args, config)
