"""`cardbench ready` as a launcher entry: its fields and the command line they make (UI-free, torch-free).

Not a registered workload: it runs several of them (`tui.ready.steps`), so the registry, the headless suite, the soak
and compare never see it. The launcher reads its title, key label and fields through the shape a workload's spec has
(`tui.workbench.entries`); the workbench starts the command itself as a child (`tui.workbench.ready_child`).

A bad value is one line (`EntryError`) before anything starts: the same checks `cardbench ready` makes of its
arguments (`budget_minutes` is the one rule for --budget, the command's parser calls it too).

Here, not in `tui.ready`: the workbench may not import that package (it runs the headless suite, whose report draws
the workbench's screenshot: a package cycle), so this module imports nothing of it; its dtypes are the steps' own
(``DTYPES``, held equal by tests/tui/test_app_ready.py).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping

from workloads.catalogue import Message, say
from workloads.models.llama.presets import known_models, preset
from workloads.spec import Param, WorkloadSpec

NAME = "ready"
BUDGET_MIN = 15.0
DTYPES = ("fp32", "fp16", "bf16")   # tui.ready.steps.DTYPES: what --dtype takes besides auto
MAX_BUDGET_MIN = 24 * 60


class EntryError(ValueError):
    """A field holds a value `cardbench ready` would refuse; the message is one line."""


def budget_minutes(text: str) -> float:
    """--budget's minutes: a number more than 0 and at most a day; ValueError (its one line) otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(say("ready.entry.budget_not_number", "en", text=repr(text[:40]))) from None
    if not math.isfinite(value) or value <= 0 or value > MAX_BUDGET_MIN:
        raise ValueError(say("ready.entry.budget_range", "en", most=MAX_BUDGET_MIN, text=text[:40]))
    return value


def _label(key: str) -> str:
    # a Param's label is English text (the launcher's fields are), said from the catalogue
    return say(f"ready.field.{key}", "en")


SPEC = WorkloadSpec(
    name=NAME,
    title=Message("ready.entry.title"),
    short=say("ready.entry.short", "en"),
    params=(
        Param("model", _label("model"), "--model", "tiny", placeholder=say("ready.field.model_hint", "en")),
        Param("dtype", _label("dtype"), "--dtype", "auto", "choice", choices=("auto", *DTYPES)),
        Param("budget", _label("budget"), "--budget", f"{BUDGET_MIN:g}"),
        Param("data", _label("data"), "--data", "", placeholder=say("ready.field.data_hint", "en")),
        Param("device", _label("device"), "--device", "", placeholder="auto"),
    ),
    suite=None,
    progress=Message("ready.entry.progress"),   # the launcher's progress line counts the command's phases
    has_loss=False,
)


def _model(text: str) -> list[str]:
    """--model for a preset, --weights for a checkpoint folder."""
    text = text.strip() or "tiny"
    if preset(text) is not None:
        return ["--model", text]
    if Path(text).expanduser().is_dir():
        return ["--weights", str(Path(text).expanduser())]
    raise EntryError(say("ready.entry.bad_model", "en", text=repr(text[:80]), known=known_models()))


def arguments(values: Mapping[str, str]) -> tuple[list[str], float]:
    """`cardbench ready`'s arguments from the fields' values, and the budget they give in minutes (as the command
    reads its --budget); `EntryError` on the first bad one."""
    args = ["ready", *_model(values.get("model", ""))]
    dtype = (values.get("dtype") or "auto").strip()
    if dtype not in ("auto", *DTYPES):
        raise EntryError(say("ready.entry.bad_dtype", "en", text=repr(dtype), known=", ".join(("auto", *DTYPES))))
    args += ["--dtype", dtype]
    budget = (values.get("budget") or "").strip() or f"{BUDGET_MIN:g}"
    try:
        said = f"{budget_minutes(budget):g}"
    except ValueError as exc:
        raise EntryError(str(exc)) from None
    args += ["--budget", said]
    data = (values.get("data") or "").strip()
    if data:
        if not Path(data).expanduser().exists():
            raise EntryError(say("ready.entry.bad_data", "en", text=data[:200]))
        args += ["--data", str(Path(data).expanduser())]
    device = (values.get("device") or "").strip()
    if device and device.lower() != "auto":
        args += ["--device", device]
    return args, float(said)
