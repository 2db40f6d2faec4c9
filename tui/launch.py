"""What the launcher offers, UI-free: each workload's main parameters and the argv they make.

The launcher shows these as editable fields; :func:`build_args` turns the
field values into the arguments of ``python -m workloads.<name>``, or says in
one line which value is wrong. A blank field is left out, so the workload's own
default applies.
"""

from __future__ import annotations

from workloads import registry
from workloads.spec import Param


class BadValue(ValueError):
    """A launcher field holds a value the workload would refuse; the message is one line."""


def params_for(workload: str) -> tuple[Param, ...]:
    """The fields of a workload, from its spec; an unregistered one has none."""
    return registry.spec_for(workload).params


def defaults(workload: str) -> dict[str, str]:
    return {p.key: p.default for p in params_for(workload)}


def build_args(workload: str, values: dict[str, str]) -> list[str]:
    """Arguments for the workload from field values; raise `BadValue` on the first bad one."""
    args: list[str] = []
    for param in params_for(workload):
        value = str(values.get(param.key, param.default) or "").strip()
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
    return registry.spec_for(workload).steps_planned(args, config)
