"""`cardbench export --run DIR... [-o DIR]`: a report bundle from runs already on disk."""

from __future__ import annotations

import argparse
import json
import signal
from pathlib import Path

from tui.headless.output import (DOCTOR_FILE, build_bundle, bundle_signals, print_path, report_options,
                                 retry_hint, say_error)
from tui.headless.progress import Progress
from tui.report.bundle import BundleError, check_output_dir
from tui.report.i18n import Words
from tui.store import RunStoreError, check_run
from workloads import exit_codes


def export_runs(args: argparse.Namespace) -> int:
    """A bundle from the runs in ``args.runs``; the doctor's checks come from the first run that kept them."""
    output = Path(getattr(args, "output", None) or ".")
    run_dirs = [Path(p) for p in args.runs]
    try:
        options = report_options(args)
        for path in run_dirs:
            if not path.is_dir():
                raise BundleError(f"{path} is not a directory (give a run directory, e.g. cardbench-runs/<run id>)")
            check_run(path)  # one line if it is not a run; the bundle reads it once, later
        check_output_dir(output)
    except (BundleError, RunStoreError) as exc:
        say_error(str(exc))
        return exit_codes.BAD_INPUT
    doctor, doctor_note = None, None
    for path in run_dirs:
        try:
            kept = json.loads((path / DOCTOR_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):  # missing, not UTF-8, not JSON, absurdly deep
            continue
        if isinstance(kept, list) and all(isinstance(c, dict) for c in kept):
            doctor = kept
            doctor_note = Words(options["lang"])("doctor_from_run", run=path.name)
            break
    progress = Progress(phases=1)
    progress.begin(f"report bundle from {len(run_dirs)} run(s)")
    try:
        with bundle_signals() as signals:
            path = build_bundle(run_dirs, output, progress, doctor, doctor_note,
                                [Words(options["lang"])("from_disk")], None, options)
    except BundleError as exc:
        say_error(str(exc))
        return exit_codes.FAILED
    except KeyboardInterrupt as exc:
        say_error(f"interrupted while writing the bundle (no partial zip is left){retry_hint(run_dirs)}")
        return exit_codes.for_signal(getattr(exc, "signum", signal.SIGINT))
    progress.end()
    print_path(path)
    # a hang-up arrived while writing: the bundle is complete, the exit status says what happened
    return exit_codes.for_signal(signal.SIGHUP) if signals["hangup"] else exit_codes.OK
