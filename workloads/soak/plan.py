"""The soak's options and its plan: which inner runs it cycles through (torch-free and light: the soak's spec
hands the plan to `cardbench soak` as ``SPEC.inner_runs``, which refuses a bad one before anything runs).

The registry imports the soak's spec, which imports this: so this imports neither the registry (it is given the
workloads on offer) nor the child's harness (whose parser asks the registry; `workloads.soak.cli` builds the
soak's parser of it, with the options named here).
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

from workloads.errors import WorkloadError
from workloads.soak.verdict import DRIFT_LIMIT_PCT, LATENCY_LIMIT_PCT, THERMAL_SHARE

WORKLOAD = "soak"
COMMAND = "command"            # the user's own job: `python -m workloads.command -- CMD`


def add_options(p: argparse.ArgumentParser, positive_float: Callable[[str], float]) -> None:
    """The soak's options on ``p``; ``positive_float`` reads a positive number (the harness's, in the soak)."""
    p.add_argument("--hours", type=positive_float, required=True, metavar="H", help="how long (0.5 = 30 minutes)")
    p.add_argument("--workload", default=None, metavar="NAMES",
                   help="the workload, or several comma-separated to alternate (resnet50,generate)")
    p.add_argument("--args", action="append", default=[], metavar="[NAME=]ARGS",
                   help="arguments for the inner workload(s), quoted as one ('--device cpu --steps 20'); "
                        "NAME=ARGS for one of an alternation; repeatable")
    p.add_argument("--device", default=None, metavar="DEVICE",
                   help="the device for the inner workload(s) (cuda:1, cpu...), passed to each as --device "
                        "unless its --args name one")
    p.add_argument("--interval", type=positive_float, default=600.0, metavar="S",
                   help="seconds per interval of the table and the verdict (default 600)")
    p.add_argument("--drift-limit", type=positive_float, default=DRIFT_LIMIT_PCT, metavar="PCT",
                   help=f"throughput drift against the first interval that fails (default {DRIFT_LIMIT_PCT:g} %%)")
    p.add_argument("--latency-limit", type=positive_float, default=LATENCY_LIMIT_PCT, metavar="PCT",
                   help=f"a serving workload's TTFT/TPOT rise against the first interval that fails (p50) or warns "
                        f"(p99) (default {LATENCY_LIMIT_PCT:g} %%)")
    p.add_argument("--thermal-share", type=positive_float, default=THERMAL_SHARE, metavar="FRACTION",
                   help=f"share of an interval under thermal throttling that warns (default {THERMAL_SHARE:g})")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where intervals.csv and verdict.txt go (default: the run directory)")
    p.add_argument("command", nargs="*", metavar="-- CMD", help="your own command instead of --workload")


class _Reread(argparse.ArgumentParser):
    """argparse whose bad argument is a WorkloadError (one line), not an exit."""

    def error(self, message: str) -> NoReturn:
        raise WorkloadError(f"{self.prog}: {message}")


def inner_runs(argv: Sequence[str], names: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The inner runs the soak's arguments plan, among the workloads ``names``. The soak's own parser checked them
    first (`cardbench soak`, in a child); they are read again here with the same options, numbers as they come."""
    p = _Reread(prog=WORKLOAD)
    add_options(p, float)
    return plan(p.parse_args(list(argv)), names)


def plan(args: Any, workloads: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The inner runs to cycle through: (workload, its arguments), among ``workloads`` (the registry's names).
    Refuses what cannot run, before anything does."""
    if args.command and args.workload:
        raise WorkloadError("give --workload or -- CMD, not both", hint="`cardbench soak --hours 1 -- python train.py`")
    if args.command:
        return [(COMMAND, _on_device(args.device, ["--", *args.command]))]
    if not args.workload:
        raise WorkloadError("--workload or -- CMD is required", hint="`cardbench soak --hours 1 --workload resnet50`")
    names = [n.strip() for n in args.workload.split(",") if n.strip()]
    offered = [n for n in workloads if n != WORKLOAD]
    bad = [n for n in names if n not in offered]
    if bad or not names:
        raise WorkloadError(f"--workload: unknown workload {', '.join(bad) or '(none given)'}",
                            hint=f"choose from {', '.join(offered)}")
    common: list[str] = []
    own: dict[str, list[str]] = {}
    for text in args.args:
        name, _, rest = text.partition("=")
        try:
            if name in names and " " not in name:
                own.setdefault(name, []).extend(shlex.split(rest))
            else:
                common.extend(shlex.split(text))
        except ValueError as exc:
            raise WorkloadError(f"--args {text!r}: {exc}") from None
    return [(n, _on_device(args.device, common + own.get(n, []))) for n in names]


def _on_device(device: str | None, args: list[str]) -> list[str]:
    """``--device`` first, unless the inner arguments choose one themselves (before any ``--`` of a command)."""
    own = args[:args.index("--")] if "--" in args else args
    if device is None or any(a == "--device" or a.startswith("--device=") for a in own):
        return args
    return ["--device", device, *args]
