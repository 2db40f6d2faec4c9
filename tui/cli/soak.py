"""`cardbench soak --hours H --workload W [--args '...'] [-- CMD ...]`: hours of one workload, judged per interval.

The soak itself is a workload (`workloads.soak`): this command checks its arguments (one line and exit 2
when they are wrong, before anything runs) and starts it as ``cardbench run soak ...`` detached
(`tui.cli.run.detach_run`): a closed SSH session, tmux or workbench leaves it running, and the
workbench lists it, attaches and stops it as any detached run. ``--foreground`` keeps it in this
terminal instead (CI, or to watch a short one), where a closed session stops it.

Light to import: argparse only; the rest is imported when the command runs.
"""

from __future__ import annotations

import argparse
from typing import Any

# the module, not its function: a name bound at import would keep a test's stand-in past the test that set it
from tui.cli import check_args
from tui.cli.errors import CliError

NAME = "soak"
# this command's options that the soak workload takes as they are: (flag, its value's name)
_FORWARDED = (("--hours", "hours"), ("--workload", "workload"), ("--device", "device"), ("--interval", "interval"),
              ("--drift-limit", "drift_limit"), ("--thermal-share", "thermal_share"))


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="run a workload for hours, detached, and judge the card interval by interval",
                       description="Run a built-in workload (or an alternation, or your own command after --) for "
                                   "--hours, detached from this session; every --interval the soak records "
                                   "throughput drift, clocks, temperature and power peaks, throttle reasons, ECC, "
                                   "remapped rows, PCIe replays, Xid lines, errors and restarts, and it ends with "
                                   "a verdict whose rules are in the run's verdict.txt.")
    p.add_argument("--hours", required=True, metavar="H", help="how long (fractions allowed: 0.5 = 30 minutes)")
    p.add_argument("--workload", metavar="NAMES", help="resnet50, or resnet50,generate to alternate")
    p.add_argument("--args", action="append", default=[], metavar="[NAME=]ARGS",
                   help="the inner workload's arguments quoted as one ('--amp bf16 --batch-size 256'); "
                        "NAME=ARGS for one workload of an alternation; repeatable")
    p.add_argument("--device", metavar="DEVICE", help="the inner workload's device (cuda:1, cpu...), unless --args "
                                                      "names one")
    p.add_argument("--interval", metavar="S", help="seconds per interval (default 600)")
    p.add_argument("--drift-limit", metavar="PCT", help="throughput drift that fails the soak (default 5)")
    p.add_argument("--thermal-share", metavar="FRACTION", help="share of an interval thermally throttled that "
                                                              "warns (default 0.1)")
    p.add_argument("--foreground", action="store_true",
                   help="run in this terminal instead of detached (a closed session then stops it)")
    p.add_argument("--runs-dir", metavar="DIR", default=argparse.SUPPRESS, help="where the run is kept")
    p.add_argument("cmd", nargs="*", metavar="-- CMD", help="your own command, after --")  # "command" names the subcommand
    return p


def soak_args(args: argparse.Namespace) -> list[str]:
    """The soak workload's arguments from this command's."""
    out: list[str] = []
    for flag, key in _FORWARDED:
        value = getattr(args, key, None)
        if value is not None:
            out += [flag, str(value)]
    for text in args.args:
        out.append(f"--args={text}")   # one token: a value that starts with '-' stays a value
    if args.cmd:
        out += ["--", *args.cmd]
    return out


def run(args: argparse.Namespace) -> int:
    import asyncio

    from workloads import registry
    from workloads.errors import WorkloadError

    argv = soak_args(args)
    checked = check_args.check_workload_args(NAME, argv)   # bad input: one line (CliError) and exit 2, nothing started
    if checked is not None:
        return checked
    # and the inner workload's own arguments, which a detached soak would otherwise refuse only in its log
    try:
        planned = registry.spec_for(NAME).inner_runs   # the soak's plan, read through its spec
        runs = planned(argv, registry.names()) if planned is not None else []
    except WorkloadError as exc:   # the check above refuses the same: this registry may differ from the child's
        raise CliError(f"cardbench soak: {exc.message}", 2) from None
    for name, inner in runs:
        checked = check_args.check_workload_args(name, inner)
        if checked is not None:
            return checked
    runs_dir = getattr(args, "runs_dir", None)
    if args.foreground:
        from tui.cli.run import run_workload

        return asyncio.run(run_workload(NAME, argv, runs_dir=runs_dir, as_json=False))
    from tui.cli.run import detach_run

    return detach_run(NAME, argv, runs_dir=runs_dir)
