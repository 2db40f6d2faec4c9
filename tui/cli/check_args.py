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
    """The workload parses its arguments in its own module and stops (the harness's check), before a run is recorded.

    None when they are good; else the exit code: 0 after printing its --help on stdout, 2 after a bad argument
    (raised as one line). Any other failure is not about the arguments: the run goes ahead and records it.
    """
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
