"""`cardbench --export-report` and `cardbench export --run DIR`: the report without the workbench.

The headless suite runs the doctor, then each workload in a child process (the
same run session as `cardbench run` and the workbench, with the telemetry
sampler recording into each run), then writes the report bundle and prints its
path on stdout. Progress goes to stderr: a bar on a terminal, plain lines otherwise
(ssh without a TTY, nohup, CI). It reads nothing from stdin.

A failed workload does not stop the suite: the bundle is written with what was
gathered and the exit status is 1. Ctrl+C, SIGTERM or SIGHUP stop the running
workload and skip the rest; the bundle is still written (exit 130). When the
bundle itself cannot be written, the runs stay on disk and the message names
them, so `cardbench export --run DIR...` can retry.

A runs dir that cannot be used at the start (not a directory, not writable) is one
line and exit 2 before anything runs. One that stops taking writes mid-suite (disk
full, read-only, unwritable) does not stop it: the running workload goes on, the
rest still run (a workload whose run cannot be created is said and counted as
failed), the report's notes say which workload's record ends where and what it
showed live, the same is said on stderr at the end, and the exit status is 1.

When torch sees none of the accelerators the management CLI (or NVML, or the PCI
bus) lists, the workloads land on the CPU: the suite says so before it starts,
each run records the warning (`tui.cpu_trap`), and the export exits 1 once the
bundle is written, unless ``--allow-cpu`` says CPU figures are what the user wants
(or ``--device cpu`` asked for them).

On a machine where torch sees no accelerator the quick suite is scaled down
(small images, few steps, one timed generation run) so it ends within minutes;
the report says so. There the workloads also share a time budget
(``$CARDBENCH_CPU_BUDGET_S``, default 210 s; 0 turns it off): a run still going
at the end of its share is stopped and reported with the steps it measured, so
a loaded host cannot push the export past five minutes. ``$CARDBENCH_HEADLESS_ARGS`` (a JSON object, workload name ->
argument list) replaces a workload's arguments: the tests use it to shrink the suite.

This module is the sequence (doctor, plan, runs, bundle); `plan` says what runs,
`suite` runs it, `progress` shows it, `output` writes the bundle, and
`from_disk` is `cardbench export --run`.
"""


from __future__ import annotations

import argparse
import asyncio
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui import doctor
from workloads.facts.formatting import format_duration, utc
from workloads.facts.warmup import MIN_MEASURED_STEPS
from tui.headless.from_disk import export_runs
from tui.headless.output import (DOCTOR_FILE, build_bundle, bundle_signals, print_path, report_options,
                                 retry_hint, say_error)
from tui.headless.plan import (ARGS_ENV, CPU_BUDGET_ENV, CPU_BUDGET_S, Job, cpu_budget, env_overrides, suite_jobs,
                               suite_names)
from tui.headless.progress import Progress
from tui.headless.suite import SuiteState, run_suite
from tui.report.bundle import BundleError, check_output_dir
from tui.report.envinfo import normalize_checks
from tui.report.i18n import note, quoted
from tui.store import RunStore, RunStoreError
from tui.session import RunSession
from tui.telemetry.sampler import Sampler
from tui.trial.clock import left_line
from workloads import exit_codes, registry
from workloads.catalogue import Message
from workloads.errors import first_line
from workloads.spec import Text

__all__ = ["ARGS_ENV", "CPU_BUDGET_ENV", "CPU_BUDGET_S", "DOCTOR_FILE", "Checked", "Job", "Progress", "accelerator",
           "checked", "doctor_phase", "export_report", "export_runs", "run_doctor", "start_sampler", "suite_jobs",
           "suite_names"]


def run_doctor(progress: Progress) -> tuple[list[dict[str, str]], str | None]:
    """The doctor's checks, their counts and failures said; ([], why) when it cannot run."""
    try:
        checks = normalize_checks(doctor.run_checks())
    except Exception as exc:  # noqa: BLE001
        return [], f"The doctor could not run: {first_line(exc, typed=True)}"
    counts = {s: sum(1 for c in checks if c["status"] == s) for s in ("PASS", "WARN", "FAIL", "SKIP")}
    progress.say("  doctor: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    for c in checks:
        if c["status"] == "FAIL":
            progress.say(f"  FAIL {c['name']}: {c['evidence']}" + (f" (hint: {c['hint']})" if c["hint"] else ""))
    return checks, None


def accelerator(checks: list[dict[str, Any]], device: str | None) -> bool:
    """Does the suite run on an accelerator? ``--device auto`` (or none) leaves it to the doctor's word."""
    if device and device.lower() != "auto":
        return not device.lower().startswith("cpu")
    return doctor.accelerator_seen(checks)


# torch's device types (torch.device() accepts these, with an optional ":N"); the UI process never imports torch
_DEVICE = re.compile(r"(auto|cpu|cuda|hip|mps|xpu|npu|musa|mlu|hpu|xla|ipu|mtia|maia|privateuseone)(:\d+)?", re.I)


def check_device(device: str | None) -> None:
    if device is not None and not _DEVICE.fullmatch(device):
        raise BundleError(f"--device {device!r} is not a torch device (auto, cpu, cuda, cuda:1, npu:0, ...)")


def _device_args(args: argparse.Namespace) -> list[str]:
    device = getattr(args, "device", None)
    return ["--device", device] if device else []


def _amp(checks: list[dict[str, Any]]) -> str:
    """The autocast precision the suite's jobs ask for: the best the doctor saw run on the device."""
    return doctor.best_autocast(checks)


def start_sampler(progress: Progress, session: RunSession) -> Any:
    """The 1 Hz sampler, recording into each run through the session; None when it cannot start."""
    try:
        return session.attach_sampler(Sampler(interval=1.0)).start()
    except Exception as exc:  # noqa: BLE001 - no telemetry is a gap in the report, not a failed suite
        progress.say(f"telemetry is not available: {first_line(exc, typed=True)}")
        return None


@dataclass(frozen=True)
class Checked:
    """What the command line asks for, checked before anything runs."""

    output: Path
    options: dict[str, Any]           # the report's price, currency and language
    overrides: dict[str, list[str]] | None   # $CARDBENCH_HEADLESS_ARGS
    store: RunStore


def checked(args: argparse.Namespace, overrides: bool = True) -> Checked:
    """The output dir, the options and the runs dir, proved usable now; BundleError or RunStoreError if not.
    ``overrides``: read $CARDBENCH_HEADLESS_ARGS too (the suite's; `cardbench ready` runs no suite)."""
    output = Path(getattr(args, "output", None) or ".")
    options = report_options(args)
    check_device(getattr(args, "device", None))
    replaced = env_overrides() if overrides else None
    check_output_dir(output)
    store = RunStore(getattr(args, "runs_dir", None))
    store.check()
    return Checked(output, options, replaced, store)


def export_report(args: argparse.Namespace) -> int:
    """The headless suite and the bundle; see the module docstring."""
    try:
        made = checked(args)
    except (BundleError, RunStoreError) as exc:
        say_error(str(exc))
        return exit_codes.BAD_INPUT
    started = time.monotonic()
    suite = getattr(args, "suite", None) or "quick"
    progress = Progress(phases=len(suite_names(getattr(args, "workloads", None), suite)) + 2)
    trial = left_line(warn=progress.say)  # the trial's time left, when `cardbench trial` set one
    if trial:
        progress.say(trial)
    state = SuiteState()
    checks, doctor_note, cut_short = doctor_phase(progress)
    jobs, notes = _plan(args, suite, checks, made.overrides, state)
    session = RunSession(made.store)
    sample = _run_the_suite(args, session, state, progress, checks, suite, jobs, cut_short)
    notes += _outcome_notes(state, jobs)
    on_cpu = session.cpu_trap.verdict()
    allow_cpu = bool(getattr(args, "allow_cpu", False))
    if on_cpu and allow_cpu:
        listed = session.cpu_trap.listed_now()
        notes.append(note("note_allow_cpu", listed=Text(listed.describe(), listed.describe("zh"))))
    progress.begin("report bundle")
    written = _write_bundle(state, made, progress, checks, doctor_note, notes, sample)
    if isinstance(written, int):
        return written
    path, late = written
    progress.end()
    failed = f"; failed: {', '.join(state.failed)}" if state.failed else ""
    progress.say(f"done in {format_duration(time.monotonic() - started)}{failed}")
    print_path(path)
    return _exit_status(state, late, on_cpu if not allow_cpu else None)


def doctor_phase(progress: Progress) -> tuple[list[dict[str, str]], str | None, bool]:
    """(the doctor's checks, why it could not run, whether a hang-up or SIGTERM came meanwhile: the suite is
    then skipped, the bundle still written)."""
    progress.begin("doctor")
    with bundle_signals(raise_on_term=False) as early:   # the doctor's probe is not cut short
        checks, doctor_note = run_doctor(progress)
    progress.end()
    return checks, doctor_note, early["hangup"] or early["terminated"]


def _plan(args: argparse.Namespace, suite: str, checks: list[dict[str, Any]], overrides: dict[str, list[str]],
          state: SuiteState) -> tuple[list[Job], list[Any]]:
    """The jobs to run, on the accelerator when the doctor (or ``--device``) says there is one, and the report's
    first notes: where the suite ran, what was scaled down."""
    state.accelerator = accelerator(checks, getattr(args, "device", None))
    jobs, notes = suite_jobs(suite, getattr(args, "workloads", None), accelerator=state.accelerator,
                             device=getattr(args, "device", None), amp=_amp(checks),
                             overrides=overrides)
    notes.insert(0, note("note_suite_accelerator" if state.accelerator else "note_suite_cpu", suite=suite))
    return jobs, notes


def _run_the_suite(args: argparse.Namespace, session: RunSession, state: SuiteState, progress: Progress,
                   checks: list[dict[str, Any]], suite: str, jobs: list[Job], cut_short: bool) -> Any:
    """The jobs (none when ``cut_short``), each a run with the sampler recording beside it; the sampler's last
    sample (None without one)."""
    trap = session.cpu_trap
    trap.see_checks(checks)  # what torch sees and how many cards are listed, by the doctor's word
    before = trap.before_run(", ".join(job.workload for job in jobs), _device_args(args))
    if before:
        allow_cpu = bool(getattr(args, "allow_cpu", False))
        progress.say(f"WARNING: {before}" + ("" if allow_cpu else " (the export will exit 1: --allow-cpu accepts it)"))
    sampler = start_sampler(progress, session)
    if cut_short:
        state.interrupted = True
        progress.say("stopping: a signal arrived during the doctor; the suite is skipped, the bundle still written")
    try:
        asyncio.run(run_suite([] if cut_short else jobs, session, state, progress, checks, suite))
    finally:
        sample = getattr(sampler, "latest", None) if sampler is not None else None
        if sampler is not None:
            sampler.stop()
    return sample


def _outcome_notes(state: SuiteState, jobs: list[Job]) -> list[Any]:
    """The report's words on how the suite went: hand-overs, budgets, an interruption, the runs dir, skipped jobs."""
    notes: list[Any] = list(state.notes)  # what a hand-over gave a later job (tui/headless/handover.py)
    notes += [note("note_budget", name=_title(name), budget=f"{cpu_budget():.0f}",
                  needed=MIN_MEASURED_STEPS) for name in state.out_of_time]
    if state.interrupted:
        notes.append(note("note_interrupted"))
    notes.extend(store_notes(state))
    notes += [note("note_not_run", name=_title(job.workload)) for job in jobs
              if job.workload not in state.ran and job.workload not in dict(state.not_started)]
    return notes


def _write_bundle(state: SuiteState, made: Checked, progress: Progress, checks: list[dict[str, Any]],
                  doctor_note: str | None, notes: list[Any], sample: Any) -> tuple[Path, dict[str, bool]] | int:
    """(the bundle's path, the signals that came while it was written), or the exit status when it was not."""
    try:
        # the suite's own handlers went with its event loop: a hang-up now must not cost the bundle
        with bundle_signals() as late:
            path = build_bundle(state.run_dirs, made.output, progress, checks, doctor_note, notes, sample,
                                made.options)
    except BundleError as exc:
        say_error(f"{exc}{retry_hint(state.run_dirs)}")
        return exit_codes.FAILED
    except KeyboardInterrupt as exc:
        say_error(f"interrupted while writing the bundle (no partial zip is left){retry_hint(state.run_dirs)}")
        return exit_codes.for_signal(getattr(exc, "signum", signal.SIGINT))
    return path, late


def _exit_status(state: SuiteState, late: dict[str, bool], on_cpu_refused: str | None) -> int:
    """What the exit status says, once the bundle is written; the incomplete records are said on stderr."""
    for lost in state.incomplete:
        say_error(f"{lost.workload}'s record is incomplete: {lost.fault.line()}; the bundle holds its progress "
                  f"up to {utc(lost.fault.since)} (seen live: {lost.live})")
    if late["hangup"]:
        return exit_codes.for_signal(signal.SIGHUP)
    if state.interrupted:
        return exit_codes.INTERRUPTED
    if on_cpu_refused:
        say_error(f"{on_cpu_refused} The bundle is written; exit 1 because the workloads did not run on the "
                  "accelerators (pass --allow-cpu if CPU figures are what you want).")
        return exit_codes.FAILED
    return exit_codes.FAILED if state.failed or state.incomplete else exit_codes.OK


def store_notes(state: SuiteState) -> list[Message]:
    """The report's words for runs the runs dir did not keep whole, or could not keep at all."""
    notes = [note("note_not_started", name=_title(name), why=quoted(why)) for name, why in state.not_started]
    notes += [note("note_incomplete", name=_title(lost.workload), time=utc(lost.fault.since),
                   file=quoted(lost.fault.file), cause=quoted(lost.fault.cause), live=quoted(lost.live))
              for lost in state.incomplete]
    return notes


def _title(workload: str) -> Any:
    """A workload as the report names it: its name in English, its spec's title in Chinese."""
    return Text(workload, registry.spec_for(workload).title("zh")) if workload in registry else workload
