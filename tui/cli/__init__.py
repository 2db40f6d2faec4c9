"""The `cardbench` command: parses arguments and dispatches; nothing heavy at import.

    cardbench                         the workbench (Textual)
    cardbench run WORKLOAD [ARGS...]  one workload, streamed to the terminal (--json: result as JSON;
                                      --detach: in a session of its own, it outlives the terminal)
    cardbench devices [--json]        one snapshot of every device and the host
    cardbench doctor [--json]         checks that the driver, the compatibility layer and torch see the card
                                      (--data DIR: and a quick look at a data directory)
    cardbench export --run DIR...     a report bundle from runs already on disk
    cardbench fit MODEL --card NAME   plan a model on a card before renting it (memory, cards, bounds)
    cardbench ready --model PRESET    should this model move to this card? one readiness table and verdict
    cardbench --export-report         the headless suite and report bundle, for plain SSH

A bad argument is one line on stderr and exit code 2; no command prints a
traceback for a failure the user can act on. ``cardbench run`` has the
workload check its own arguments before a run is recorded, so a mistyped
option leaves no run directory and ``--help`` is the workload's help on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from typing import NoReturn, Sequence

from tui import __version__
from tui.cli.check_args import check_workload_args
from tui.cli.errors import CliError
from workloads import exit_codes, registry

# commands that live in their own package: each module has ``add_parser(sub)`` (sub: the subparsers action;
# it adds its parser under its name) and ``run(args) -> int``. Importing one must stay light (no torch, no Textual).
COMMAND_MODULES: dict[str, str] = {
    "compare": "tui.cli.compare",
    "trial": "tui.cli.trial",
    "backup": "tui.cli.backup",
    "soak": "tui.cli.soak",
    "fit": "tui.cli.fit",
    "ready": "tui.cli.ready",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise CliError(f"{self.prog}: {message} (see `{self.prog} --help`)", exit_codes.BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cardbench",
                     description="Check, benchmark and report on a rented GPU from the terminal.")
    parser.add_argument("--version", action="version", version=f"cardbench {__version__}")
    parser.add_argument("--runs-dir", metavar="DIR",
                        help="where runs are kept (default: $CARDBENCH_RUNS_DIR or ./cardbench-runs)")
    parser.add_argument("--export-report", action="store_true",
                        help="run the headless suite (the doctor, then "
                             f"{', '.join(s.title.en for s in registry.specs() if s.suite and s.suite.default)}) "
                             "and write the report bundle")
    parser.add_argument("-o", "--output", metavar="DIR", help="with --export-report: where the bundle goes")
    parser.add_argument("--suite", choices=("quick", "standard"), default="quick",
                        help="with --export-report: quick (short timed runs) or standard (--epochs 3 --batch-size 128)")
    parser.add_argument("--workloads", nargs="+", metavar="NAME", choices=registry.names(),
                        help="with --export-report: which workloads to run (default: all)")
    parser.add_argument("--price-per-hour", type=float, metavar="PRICE",
                        help="instance price, for cost per epoch and per million tokens in the report")
    parser.add_argument("--currency", default="USD", help="currency of --price-per-hour (default USD)")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of report.md")
    parser.add_argument("--device", metavar="DEV", help="torch device for the workloads (default: first accelerator)")
    parser.add_argument("--allow-cpu", action="store_true",
                        help="with --export-report: exit 0 even when the workloads ran on the CPU while "
                             "accelerators are listed (torch could not use them)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    run = sub.add_parser("run", help="run one workload and stream its progress",
                         description="Run one workload; every option after the workload name goes to it "
                                     "(`cardbench run WORKLOAD --help` lists them).")
    run.add_argument("workload", help=f"one of: {', '.join(registry.names())}")
    run.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    run.add_argument("--runs-dir", metavar="DIR", default=argparse.SUPPRESS, help="where the run is kept")
    run.add_argument("--detach", action="store_true",
                     help="start the run in a session of its own and return: it goes on after the terminal, SSH "
                          "or tmux session closes (the workbench's key r lists, attaches to and stops it)")

    devices = sub.add_parser("devices", help="print one snapshot of every device and the host")
    devices.add_argument("--json", action="store_true", help="as JSON")

    doctor = sub.add_parser("doctor", help="check the driver, management CLI, PyTorch and the device")
    doctor.add_argument("--json", action="store_true", help="as JSON")
    doctor.add_argument("--data", metavar="DIR", default=None,
                        help="also a quick look at a data directory: where it lives, its files, a read rate")

    export = sub.add_parser("export", help="build a report bundle from runs already on disk")
    export.add_argument("--run", dest="runs", action="extend", nargs="+", metavar="DIR", required=True,
                        help="run directories: --run A B C, or --run A --run B")
    export.add_argument("-o", "--output", metavar="DIR", help="where the bundle goes (default: .)")
    # the report options also after `export`; SUPPRESS keeps a value given before the command
    export.add_argument("--price-per-hour", type=float, metavar="PRICE", default=argparse.SUPPRESS,
                        help="instance price, for cost per epoch and per million tokens")
    export.add_argument("--currency", default=argparse.SUPPRESS, help="currency of --price-per-hour (default USD)")
    export.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS, help="language of report.md")
    for module in COMMAND_MODULES.values():
        importlib.import_module(module).add_parser(sub)
    return parser


# options of `cardbench run` itself; everything else is the workload's
_RUN_OWN = {"--json": 0, "--runs-dir": 1, "--detach": 0}


def _split_run_args(rest: Sequence[str]) -> tuple[list[str], list[str]]:
    own: list[str] = []
    forwarded: list[str] = []
    items = list(rest)
    i = 0
    while i < len(items):
        item = items[i]
        if item == "--" and forwarded:
            forwarded.extend(items[i:])  # the workload's own `--` and all after it (a command's arguments) are its
            break
        key = item.split("=", 1)[0]
        if key in _RUN_OWN:
            take = 0 if "=" in item else _RUN_OWN[key]
            own.extend(items[i:i + 1 + take])
            i += 1 + take
            continue
        forwarded.append(item)
        i += 1
    return own, forwarded


def _cmd_run(args: argparse.Namespace, workload_args: list[str]) -> int:
    if args.workload not in registry:
        raise CliError(f"cardbench run: unknown workload {args.workload!r} "
                       f"(choose from {', '.join(registry.names())})", exit_codes.BAD_INPUT)
    if args.detach and args.json:
        raise CliError("cardbench run: --detach returns before the result exists; leave out --json "
                       "(the result is in the run's events.jsonl)", exit_codes.BAD_INPUT)
    from tui.detach import is_detached

    # a detached run's arguments were checked by the command that started it
    checked = None if is_detached() else check_workload_args(args.workload, workload_args)
    if checked is not None:
        return checked
    if args.detach:
        from tui.cli.run import detach_run

        return detach_run(args.workload, workload_args, runs_dir=args.runs_dir)
    from tui.cli.run import run_workload

    return asyncio.run(run_workload(args.workload, workload_args, runs_dir=args.runs_dir, as_json=args.json))


_TAKES_VALUE = {"--runs-dir", "-o", "--output", "--suite", "--price-per-hour", "--currency", "--lang", "--device"}


def _command_index(argv: list[str], command: str) -> int | None:
    for i, item in enumerate(argv):
        if item == command and (i == 0 or argv[i - 1] not in _TAKES_VALUE):
            return i
        if not item.startswith("-") and (i == 0 or argv[i - 1] not in _TAKES_VALUE):
            return None  # another command came first
    return None


def dispatch(argv: Sequence[str]) -> int:
    parser = build_parser()
    argv = list(argv)
    workload_args: list[str] = []
    at = _command_index(argv, "run")
    if at is not None:
        # everything after the workload name belongs to the workload, except our own options, which may
        # also come before the name (`cardbench run --runs-dir DIR resnet50 ...`)
        own, rest = _split_run_args(argv[at + 1:])
        argv = argv[:at + 1] + own + rest[:1]
        workload_args = rest[1:]
    args = parser.parse_args(argv)

    if args.export_report:
        if args.command:
            raise CliError("cardbench: --export-report takes no command", exit_codes.BAD_INPUT)
        from tui.headless import export_report

        return export_report(args)
    if args.command == "run":
        return _cmd_run(args, workload_args)
    if args.command == "devices":
        from tui.telemetry.once import main as devices_main

        return devices_main(args.json)
    if args.command == "doctor":
        from tui.cli.doctor import main as doctor_main

        return doctor_main(args.json, data=args.data)
    if args.command == "export":
        from tui.headless import export_runs

        return export_runs(args)
    if args.command in COMMAND_MODULES:
        return int(importlib.import_module(COMMAND_MODULES[args.command]).run(args))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # Textual would paint escape codes into a pipe and wait for keys that never come
        raise CliError("cardbench: the workbench needs a terminal (ssh -t); without one use "
                       "`cardbench --export-report` or `cardbench run WORKLOAD`", exit_codes.BAD_INPUT)
    from tui.workbench.app import main as app_main

    return app_main(runs_dir=args.runs_dir)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return dispatch(sys.argv[1:] if argv is None else argv)
    except CliError as exc:
        print(f"{exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("cardbench: interrupted", file=sys.stderr)
        return exit_codes.INTERRUPTED
    except BrokenPipeError:
        return exit_codes.FAILED


def console_main() -> NoReturn:
    sys.exit(main())

