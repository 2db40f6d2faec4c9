"""A workload's arguments checked in its own child before a run is recorded (`cardbench run`, `cardbench soak`)."""

from __future__ import annotations

import os
import subprocess
import sys

from tui.cli.errors import CliError
from workloads import exit_codes, registry

# a workload that parses its arguments without the harness's parser runs on to its first event before the check
# stops it; past this, the arguments were taken and the run goes ahead
_CHECK_TIMEOUT_S = 60


def check_workload_args(name: str, workload_args: list[str]) -> int | None:
    """The workload parses its arguments in its own module and stops (the harness's check), before a run is recorded;
    then its ``--device``, where the type is one torch has no name for.

    None when they are good; else the exit code: 0 after printing its --help on stdout, 2 after a bad argument
    (raised as one line). Any other failure is not about the arguments: the run goes ahead and records it.
    """
    checked = _child_check(name, workload_args)
    if checked is None:
        _check_device(name, workload_args)
    return checked


def _child_check(name: str, workload_args: list[str]) -> int | None:
    """The workload's own check, in its child: None (good, or the check could not run), 0 after --help, or a
    CliError with the child's one line."""
    # the event schema (tens of ms to import) only when a run is asked for: `cardbench` starts the workbench
    from workloads.protocol import CHECK_ARGS_ENV

    command = [sys.executable, "-m", registry.spec_for(name).run_module, *workload_args]
    try:
        done = subprocess.run(command, env={**os.environ, CHECK_ARGS_ENV: f"cardbench run {name}"},
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=_CHECK_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode == exit_codes.HELP_SHOWN:
        sys.stdout.write(done.stdout)
        return exit_codes.OK
    if done.returncode == exit_codes.BAD_INPUT:
        said = done.stderr.strip().splitlines()  # the harness's one line, last after any import-time noise
        raise CliError(said[-1] if said else f"cardbench run {name}: bad arguments", exit_codes.BAD_INPUT)
    return None


def _check_device(name: str, workload_args: list[str]) -> None:
    """A ``--device`` of a type torch has no name for ('foo'), refused now as the headless suite and `cardbench
    ready` refuse it: the child would refuse it only after the run was recorded. Whether a known type is present
    on this machine takes torch: the run's child says so (and a run refused that way leaves no directory)."""
    # the device the run would take, as the CPU trap reads it ('' for none or auto)
    from tui.cpu_trap.facts import requested_device

    device = requested_device(workload_args)
    if not device:
        return
    # the suite's check and its error type: imported only when a --device is given (a few hundred ms)
    from tui.headless import check_device
    from tui.report.bundle import BundleError

    try:
        check_device(device)
    except BundleError as exc:
        raise CliError(f"cardbench run {name}: {exc}", exit_codes.BAD_INPUT) from None
