"""What the launcher offers, UI-free: each workload's main parameters and the argv they make.

The launcher shows these as editable fields; :func:`build_args` turns the
field values into the arguments of ``python -m workloads.<name>``, or says in
one line which value is wrong. A blank field is left out, so the workload's own
default applies.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One launcher field: ``flag`` is the workload's option, ``choices`` makes it a pick-list."""

    key: str
    label: str
    flag: str
    default: str = ""
    kind: str = "text"                 # "int" (positive), "text", "choice", or "switch" (a bare flag when on)
    choices: tuple[str, ...] = ()
    placeholder: str = ""
    omit: tuple[str, ...] = ()         # values that mean "the workload's default": not passed


SWITCH = ("off", "on")

PARAMS: dict[str, tuple[Param, ...]] = {
    "resnet50": (
        Param("batch_size", "batch size", "--batch-size", "64", "int"),
        Param("epochs", "epochs", "--epochs", "1", "int"),
        Param("steps", "steps (cap)", "--steps", "200", "int", placeholder="no cap"),
        Param("image_size", "image size", "--image-size", "224", "int"),
        Param("amp", "AMP", "--amp", "off", "choice", ("off", "fp16", "bf16")),
        Param("channels_last", "channels-last", "--channels-last", "off", "switch", SWITCH),
        Param("data", "data", "--data", "synthetic", placeholder="synthetic | fake | DIR",
              omit=("synthetic",)),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
    "generate": (
        Param("tokens", "tokens", "--tokens", "256", "int"),
        Param("batch_size", "batch size", "--batch-size", "1", "int"),
        Param("dtype", "dtype", "--dtype", "auto", "choice", ("auto", "fp32", "fp16", "bf16"), omit=("auto",)),
        Param("model_size", "model size", "--model-size", "124M", "choice",
              ("124M", "355M", "774M", "1.5B")),  # not "tiny": its context (64) is below the default tokens
        Param("prompt_len", "prompt length", "--prompt-len", "32", "int"),
        Param("repeat", "timed runs", "--repeat", "3", "int"),
        Param("cuda_graphs", "CUDA graphs", "--cuda-graphs", "off", "switch", SWITCH),
        Param("compile", "torch.compile", "--compile", "off", "switch", SWITCH),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
}


class BadValue(ValueError):
    """A launcher field holds a value the workload would refuse; the message is one line."""


def params_for(workload: str) -> tuple[Param, ...]:
    """The fields of a workload; one with no entry here (added later) starts with no options."""
    return PARAMS.get(workload, ())


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


def _positive(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def total_steps(args: list[str], config: dict | None = None) -> int | None:
    """How many step numbers the run will count up to, when it can be known (for the ETA); else None.

    From the workload's start config when there is one: ``total_steps``; epochs x steps per
    epoch, capped by ``steps`` (resnet50); tokens x repeats (generate counts decoded tokens).
    Before the start event, a ``--steps`` cap is all there is.
    """
    config = config or {}
    if _positive(config.get("total_steps")):
        return config["total_steps"]
    cap = _positive(config.get("steps"))
    epochs, epoch_size, batch = (_positive(config.get(k)) for k in ("epochs", "epoch_size", "batch_size"))
    if epochs and epoch_size and batch:
        per_step = batch * (_positive(config.get("world_size")) or 1)
        planned = epochs * -(-epoch_size // per_step)
        return min(cap, planned) if cap else planned
    tokens = _positive(config.get("tokens"))
    if tokens:
        return tokens * (_positive(config.get("repeat")) or 1)
    if cap:
        return cap
    if "--steps" in args:
        try:
            return _positive(int(args[args.index("--steps") + 1]))
        except (IndexError, ValueError):
            return None
    return None
