"""What both headless commands end with: the report options, the bundle, and a failure as one line on stderr."""

from __future__ import annotations

import argparse
import contextlib
import math
import shlex
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Iterator, Sequence

from tui.headless.progress import Progress
from tui.report.bundle import BundleError
from tui.report.export import ExportInputs, export_bundle
from tui.trial.config import report_price
from workloads.rundir import DOCTOR

DOCTOR_FILE = DOCTOR  # the doctor's checks, kept beside a headless run for a later `export --run`


class Interrupted(KeyboardInterrupt):
    """SIGTERM while the bundle is written: it ends as Ctrl+C does (the bundle writer leaves no partial zip)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def bundle_signals(raise_on_term: bool = True) -> Iterator[dict[str, bool]]:
    """The signal policy of the bundle phase; yields ``{"hangup": bool, "terminated": bool}``.

    SIGTERM raises `Interrupted` (Ctrl+C already raises KeyboardInterrupt): the caller
    prints the retry command. A hang-up (the SSH session dropped) is only noted: the
    runs are complete, so the bundle is finished for the user to collect when back.
    With ``raise_on_term=False`` (a phase that cannot be cut short, the doctor's probe)
    SIGTERM is only noted too.
    """
    state = {"hangup": False, "terminated": False}
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def on_term(signum: int, frame: Any) -> None:
        state["terminated"] = True
        if raise_on_term:
            raise Interrupted(signum)

    def on_hangup(signum: int, frame: Any) -> None:
        state["hangup"] = True

    previous = {sig: signal.signal(sig, handler) for sig, handler in ((signal.SIGTERM, on_term),
                                                                      (signal.SIGHUP, on_hangup))}
    try:
        yield state
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def say_error(message: str) -> None:
    try:
        print(f"cardbench: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def print_path(path: Path) -> None:
    """The bundle's path, the one line on stdout."""
    try:
        print(path, flush=True)
    except (OSError, ValueError):
        pass


def retry_hint(run_dirs: Sequence[Path]) -> str:
    if not run_dirs:
        return ""
    return "; the runs are kept: retry with `cardbench export " + " ".join(
        f"--run {shlex.quote(str(p))}" for p in run_dirs) + " -o DIR`"


def report_options(args: argparse.Namespace) -> dict[str, Any]:
    price, currency, price_from = report_price(getattr(args, "price_per_hour", None),
                                               getattr(args, "currency", None) or "USD")
    if price is not None and not (math.isfinite(price) and price >= 0):
        raise BundleError(f"--price-per-hour must be a number of 0 or more (0 for a free trial), not {price}")
    return {"price_per_hour": price, "currency": currency, "price_from": price_from,
            "lang": getattr(args, "lang", None) or "en"}


def build_bundle(run_dirs: list[Path], output: Path, progress: Progress, doctor: Any, doctor_note: str | None,
                 notes: list[str], sample: Any, options: dict[str, Any]) -> Path:
    from tui.workbench.screenshot import app_screenshot  # lazy: the workbench (Textual) only when a bundle is drawn

    def show(message: str) -> None:
        if progress.tty:
            progress.update(None, message)
        else:
            progress.say(f"  {message}")

    return export_bundle(ExportInputs(run_dirs, output, screenshot=app_screenshot, progress=show,
                                      doctor_checks=doctor, doctor_note=doctor_note, notes=notes, sample=sample,
                                      **options))
