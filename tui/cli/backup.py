"""`cardbench backup [DEST] [--include PATH...] [--runs-dir DIR] [--keep N] [--staging DIR]`.

DEST is a local or mounted folder, or an rclone remote (``remote:bucket/prefix``); without it, the
destination kept by `cardbench trial --backup-dest`. Progress goes to stderr (one line redrawn on a
terminal, a line every few seconds otherwise), the result to stdout. Light to import: `cardbench`
builds every command's parser at start.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from workloads import exit_codes

NAME = "backup"
# a copy shorter than this shows no progress; past it, a line at most this often when stderr is not a terminal
QUIET_S = 1.0
LINE_EVERY_S = 5.0


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(NAME, help="back up runs, checkpoints and report bundles to a folder or an rclone remote",
                            description="Back up the run store, the checkpoints the runs wrote, report bundles "
                                        "(cardbench-report-*.zip in . and ./reports) and --include paths, as plain "
                                        "files with a SHA-256 manifest, into DEST/<UTC time>/. A second backup sends "
                                        "only what changed; an interrupted one leaves the previous one whole.")
    parser.add_argument("dest", nargs="?", metavar="DEST",
                        help="a folder, or an rclone remote:bucket/prefix set up with `rclone config` "
                             "(default: the one kept by `cardbench trial --backup-dest`)")
    parser.add_argument("--include", nargs="+", action="extend", default=[], metavar="PATH",
                        help="more files or folders to back up (code, weights, data)")
    parser.add_argument("--runs-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="the runs dir to back up (default: $CARDBENCH_RUNS_DIR or ./cardbench-runs)")
    parser.add_argument("--keep", type=_positive, default=2, metavar="N",
                        help="complete backups kept at DEST, the newest included (default 2)")
    parser.add_argument("--verify", choices=("full", "sizes"), default="full",
                        help="full (default): read back and hash every file sent (for a remote, download it again); "
                             "sizes: list sizes and read the manifest back only, when time is short")
    parser.add_argument("--staging", metavar="DIR",
                        help="for a remote: where changed files are staged before upload (default: the temp dir)")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--keep must be a whole number from 1, not {text!r}")
    return value


class ProgressLine:
    """Bytes done out of the bytes to do, after the first second: redrawn in place on a terminal, else a line
    every few seconds (a log over SSH stays readable)."""

    def __init__(self, stream: TextIO | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr   # the stderr of now, not of the first import
        self.clock = clock
        self.start = clock()
        self.last = float("-inf")   # the first line comes as soon as the quiet second is over
        self.tty = self.stream.isatty()
        self.drawn = False
        self.first: tuple[float, int, str] | None = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        from workloads.facts.formatting import format_bytes

        now = self.clock()
        if now - self.start < QUIET_S or (not self.tty and now - self.last < LINE_EVERY_S):
            return
        self.last = now
        if self.first is None or self.first[2] != phase:   # a rate per phase, from its first bytes
            self.first = (now, done, phase)
        rate = (done - self.first[1]) / max(now - self.first[0], 1e-9)
        line = (f"backup: {phase} {100 * done / total if total else 100:.0f} % ({format_bytes(done)} of "
                f"{format_bytes(total)}")
        line += f", {format_bytes(rate)}/s)" if rate > 0 else ")"
        if self.tty:
            self.stream.write(f"\r{line}\x1b[K")
            self.drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    from tui.backup.engine import check_dest, open_destination, run_backup, sources_for
    from tui.backup.errors import BackupError
    from tui.backup.sources import SourceError
    from tui.store import runs_root
    from tui.trial.config import TrialConfigError, load
    from workloads.safe_text import one_line

    dest = args.dest
    try:   # the destination kept by `cardbench trial --backup-dest`; a broken config must not read as none
        kept = load().backup_dest
    except TrialConfigError as exc:
        if not dest:
            print(f"cardbench backup: no DEST given, and the kept one cannot be read: {one_line(exc)}", file=sys.stderr)
            return exit_codes.BAD_INPUT
        # the backup needs nothing from it, but the trial's clock and `b` in the workbench do: say so once here
        print(f"cardbench backup: warning: the trial settings cannot be read ({one_line(exc)}); backing up to the "
              "DEST given", file=sys.stderr)
        kept = None
    dest = dest or kept
    if not dest:
        print("cardbench backup: no DEST given and none kept (cardbench trial --backup-dest DEST)", file=sys.stderr)
        return exit_codes.BAD_INPUT
    progress = ProgressLine()
    target = None
    try:
        runs = runs_root(getattr(args, "runs_dir", None))
        check_dest(dest, runs)   # before open_destination makes the folder
        target = open_destination(dest, args.staging)
        gathered = sources_for(target, runs, args.include, args.staging)
        for note in gathered.notes:
            print(f"backup: {note}", file=sys.stderr)
        kinds = ", ".join(f"{kind} {gathered.count(kind)}" for kind in ("runs", "checkpoints", "reports", "include")
                          if gathered.count(kind))
        print(f"backup: {len(gathered.files)} files to {dest}" + (f" ({kinds})" if kinds else ""), flush=True)
        result = run_backup(dest, gathered, keep=args.keep, staging=args.staging, progress=progress,
                            destination=target, verify=args.verify)
    except SourceError as exc:
        progress.close()
        print(f"cardbench backup: {exc}", file=sys.stderr)
        return exit_codes.BAD_INPUT
    except BackupError as exc:
        progress.close()
        print(str(exc), file=sys.stderr)
        return exc.code
    except OSError as exc:   # unforeseen (a source unreadable mid-way...): still one line, and LATEST untouched
        progress.close()
        print(f"cardbench backup: {exc}", file=sys.stderr)
        return exit_codes.FAILED
    except KeyboardInterrupt:
        progress.close()
        previous = getattr(target, "previous", None)
        kept = f"the previous backup {previous} is intact" if previous else "no earlier backup was there"
        print(f"cardbench backup: interrupted; {kept} at {dest}", file=sys.stderr)
        return exit_codes.INTERRUPTED
    progress.close()
    for line in result.lines():
        print(line)
    return exit_codes.OK
