"""`cardbench export --run DIR... [-o DIR]`: a report bundle from runs already on disk."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tui.headless.output import DOCTOR_FILE, build_bundle, print_path, report_options, say_error
from tui.headless.progress import Progress
from tui.report.bundle import BundleError, check_output_dir
from tui.report.i18n import Words
from tui.runs import RunStoreError, check_run
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
        path = build_bundle(run_dirs, output, progress, doctor, doctor_note,
                            [Words(options["lang"])("from_disk")], None, options)
    except BundleError as exc:
        say_error(str(exc))
        return exit_codes.FAILED
    except KeyboardInterrupt:
        say_error("interrupted while writing the bundle (no partial zip is left)")
        return exit_codes.INTERRUPTED
    progress.end()
    print_path(path)
    return exit_codes.OK
