"""`cardbench --export-report` and `cardbench export --run DIR`: the report without the workbench.

The headless suite runs the doctor, then each workload in a child process (the
same runner and run store as `cardbench run`), with the telemetry sampler
writing into each run, then writes the report bundle and prints its path on
stdout. Progress goes to stderr: a bar on a terminal, plain lines otherwise
(ssh without a TTY, nohup, CI). It reads nothing from stdin.

A failed workload does not stop the suite: the bundle is written with what was
gathered and the exit status is 1. Ctrl+C, SIGTERM or SIGHUP stop the running
workload and skip the rest; the bundle is still written (exit 130). When the
bundle itself cannot be written, the runs stay on disk and the message names
them, so `cardbench export --run DIR...` can retry.

On a machine where torch sees no accelerator the quick suite is scaled down
(small images, few steps, one timed generation run) so it ends within minutes;
the report says so. There the workloads also share a time budget
(``$CARDBENCH_CPU_BUDGET_S``, default 210 s; 0 turns it off): a run still going
at the end of its share is stopped and reported with the steps it measured, so
a loaded host cannot push the export past five minutes. ``$CARDBENCH_HEADLESS_ARGS`` (a JSON object, workload name ->
argument list) replaces a workload's arguments: the tests use it to shrink the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shlex
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TextIO

from tui.report.bundle import BundleError, check_output_dir
from tui.report.i18n import Words
from tui.runs import RunStore, RunStoreError, load_run
from workloads import protocol, registry
from workloads.runner import Outcome, Runner
from workloads.spec import Metric

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
ARGS_ENV = "CARDBENCH_HEADLESS_ARGS"
# on a CPU-only machine the workloads together get this long, so the whole export ends within five minutes
# even on a loaded host; a run still going at its share of it is stopped and reported with what it measured
CPU_BUDGET_ENV = "CARDBENCH_CPU_BUDGET_S"
CPU_BUDGET_S = 210.0
DOCTOR_FILE = "doctor.json"  # the doctor's checks, kept beside a headless run for a later `export --run`


# -- the suite ---------------------------------------------------------------------------------

@dataclass
class Job:
    workload: str
    args: list[str]
    total: float | None   # step numbers the run will count to (steps, or tokens: the spec says), for the bar
    deadline: float | None = None  # monotonic time by which a CPU-only run is stopped (the five-minute promise)


def suite_names(workloads: Sequence[str] | None) -> list[str]:
    """The workloads the suite runs, in registry order: those named, else every default one."""
    if workloads:
        return [s.name for s in registry.specs() if s.name in workloads] + \
            [w for w in workloads if w not in registry]
    return [s.name for s in registry.specs() if s.suite is not None and s.suite.default]


def suite_jobs(suite: str, workloads: Sequence[str] | None, *, accelerator: bool, device: str | None,
               amp: str = "off", overrides: dict[str, list[str]] | None = None) -> tuple[list[Job], list[str]]:
    """The workloads to run and their arguments, with one note per choice the report must state."""
    notes: list[str] = []
    device_args = ["--device", device] if device else []
    jobs: list[Job] = []
    for name in suite_names(workloads):
        spec = registry.spec_for(name)
        if overrides and name in overrides:
            args = [str(a) for a in overrides[name]]
            notes.append(f"{name}: arguments set by ${ARGS_ENV}: {' '.join(args)}")
        elif spec.suite is not None:
            args, note = spec.suite.args(suite, accelerator=accelerator, amp=amp)
            args += device_args
            if note:
                notes.append(f"{name}: {note}")
        else:
            args = list(device_args)
        jobs.append(Job(name, args, spec.steps_planned(args)))
    return jobs, notes


def _overrides() -> dict[str, list[str]] | None:
    text = os.environ.get(ARGS_ENV)
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"${ARGS_ENV} is not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise BundleError(f"${ARGS_ENV} must be a JSON object of workload name -> list of arguments")
    return {str(k): [str(a) for a in v] for k, v in data.items()}


# -- progress ----------------------------------------------------------------------------------

class Progress:
    """A bar on a terminal, else a line per phase and one every few seconds; never fails the export."""

    LINE_EVERY_S = 10.0

    def __init__(self, phases: int, stream: TextIO | None = None, tty: bool | None = None):
        self.stream = stream or sys.stderr
        try:
            self.tty = self.stream.isatty() if tty is None else tty
        except (AttributeError, ValueError):
            self.tty = False
        self.phases = max(phases, 1)
        self.done = 0
        self.current = ""
        self._last_line = 0.0
        self._bar_shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed SSH session: keep working, the bundle matters more
            pass

    def say(self, message: str) -> None:
        if self._bar_shown:
            self._write("\r\033[K")
            self._bar_shown = False
        self._write(f"cardbench: {message}\n")

    def begin(self, name: str) -> None:
        self.current = name
        self.say(f"[{self.done + 1}/{self.phases}] {name}")
        self._last_line = time.monotonic()

    def update(self, fraction: float | None, detail: str) -> None:
        fraction = None if fraction is None else max(0.0, min(1.0, fraction))
        if self.tty:
            overall = (self.done + (fraction or 0.0)) / self.phases
            width = 24
            filled = int(round(overall * width))
            line = f"[{'#' * filled}{'-' * (width - filled)}] {overall * 100:3.0f}%  {self.current}: {detail}"
            self._write("\r\033[K" + line[:200])
            self._bar_shown = True
        elif time.monotonic() - self._last_line >= self.LINE_EVERY_S:
            self._last_line = time.monotonic()
            self.say(f"  {self.current}: {detail}")

    def end(self) -> None:
        self.done += 1
        if self._bar_shown:
            self._write("\r\033[K")
            self._bar_shown = False


# -- the runs ----------------------------------------------------------------------------------

@dataclass
class SuiteState:
    run_dirs: list[Path] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    out_of_time: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    interrupted: bool = False
    runner: Any = None
    accelerator: bool = True


def _step_detail(event: protocol.Step, job: Job) -> tuple[float | None, str]:
    total = job.total
    if registry.spec_for(job.workload).counts == "tokens":
        parts = [f"{event.step}/{int(total)} tokens" if total else f"{event.step} tokens"]
    else:
        parts = [f"step {event.step}" + (f"/{int(total)}" if total else "")]
    if event.throughput is not None:
        parts.append(f"{event.throughput:.1f} {event.unit or ''}".strip())
    if event.loss is not None:
        parts.append(f"loss {event.loss:.3f}")
    return (float(event.step) / total if total else None), ", ".join(parts)


def _line_value(metric: Metric, value: Any) -> str:
    if metric.kind == "seconds":
        return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"
    if metric.kind == "fraction":
        return f"{value * 100:.1f} %"
    return f"{value:.3f}"


def _result_line(name: str, outcome: Outcome) -> str:
    status = outcome.status
    if outcome.result is None:
        why = f": {outcome.error_line}" if outcome.error else ""
        return f"{name}: {status}{why}"
    spec = registry.spec_for(name)
    m = outcome.result.metrics
    bits = []
    if isinstance(m.get(spec.headline), (int, float)):
        bits.append(f"{m[spec.headline]:.1f} {spec.unit}")
    for metric in spec.line_metrics:
        value = m.get(metric.key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            bits.append(f"{metric.label.en} {_line_value(metric, value)}")
    return f"{name}: {status}" + (f", {', '.join(bits)}" if bits else "")


async def _run_job(job: Job, store: RunStore, sampler: Any, state: SuiteState, progress: Progress,
                   doctor: list[dict[str, str]], suite: str) -> None:
    run = store.create(job.workload, job.args, source="cardbench --export-report", suite=suite)
    state.run_dirs.append(run.path)
    state.ran.append(job.workload)
    try:
        (run.path / DOCTOR_FILE).write_text(json.dumps(doctor, indent=2) + "\n", encoding="utf-8")
    except OSError:
        pass  # the report runs the doctor again when this is missing
    progress.say(f"  run {run.id}: cardbench run {job.workload} {' '.join(shlex.quote(a) for a in job.args)}")
    if sampler is not None:
        try:
            sampler.set_run_dir(run.path)
        except OSError as exc:
            progress.say(f"  telemetry will not be recorded for this run: {exc}")
    runner = Runner.for_workload(job.workload, job.args, run=run)
    state.runner = runner
    outcome = Outcome()
    timer = None
    if job.deadline is not None:
        def out_of_time() -> None:
            if runner.running and not state.interrupted:
                state.out_of_time.append(job.workload)
                progress.say(f"  {job.workload}: stopped at its share of the CPU time budget; "
                             "the report keeps the steps it measured")
                asyncio.ensure_future(runner.stop())
        timer = asyncio.get_running_loop().call_later(max(0.0, job.deadline - time.monotonic()), out_of_time)
    try:
        async for event in runner.events():
            outcome.see(event)
            if isinstance(event, protocol.Step):
                fraction, detail = _step_detail(event, job)
                progress.update(fraction, detail)
            elif isinstance(event, (protocol.Fallback, protocol.WorkloadWarning)):
                progress.say(f"  {event.describe()}")
    finally:
        if timer is not None:
            timer.cancel()
        state.runner = None
        if sampler is not None:
            sampler.set_run_dir(None)
        run.close()
    progress.say("  " + _result_line(job.workload, outcome))
    stopped_for_time = job.workload in state.out_of_time and outcome.status == "stopped"
    if outcome.status != "ok" and not stopped_for_time:
        state.failed.append(job.workload)


async def _run_suite(jobs: list[Job], store: RunStore, sampler: Any, state: SuiteState, progress: Progress,
                     doctor: list[dict[str, str]], suite: str) -> None:
    loop = asyncio.get_running_loop()

    def stop() -> None:
        if not state.interrupted:
            state.interrupted = True
            progress.say("stopping: the running workload is stopped, the rest skipped; the bundle is still written")
        if state.runner is not None:
            asyncio.ensure_future(state.runner.stop())

    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in signals:
        try:
            loop.add_signal_handler(sig, stop)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        budget = _cpu_budget() if not state.accelerator else None
        if budget is not None and jobs:
            started = time.monotonic()
            for i, job in enumerate(jobs):
                job.deadline = started + budget * (i + 1) / len(jobs)
        for job in jobs:
            if state.interrupted:
                break
            progress.begin(f"{registry.spec_for(job.workload).title.en} ({job.workload})")
            await _run_job(job, store, sampler, state, progress, doctor, suite)
            progress.end()
    finally:
        for sig in signals:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass


def _cpu_budget() -> float | None:
    text = os.environ.get(CPU_BUDGET_ENV)
    if text is None:
        return CPU_BUDGET_S
    try:
        value = float(text)
    except ValueError:
        return CPU_BUDGET_S
    return value if value > 0 else None  # 0 turns the budget off


def _start_sampler(progress: Progress) -> Any:
    try:
        from tui.telemetry import Sampler

        return Sampler(interval=1.0).start()
    except Exception as exc:  # noqa: BLE001 - no telemetry is a gap in the report, not a failed suite
        progress.say(f"telemetry is not available: {type(exc).__name__}: {exc}")
        return None


def _doctor(progress: Progress) -> tuple[list[dict[str, str]], str | None]:
    from tui.report.envinfo import normalize_checks

    try:
        from tui.doctor import run_checks

        checks = normalize_checks(run_checks())
    except Exception as exc:  # noqa: BLE001
        return [], f"The doctor could not run: {type(exc).__name__}: {exc}"
    counts = {s: sum(1 for c in checks if c["status"] == s) for s in ("PASS", "WARN", "FAIL", "SKIP")}
    progress.say("  doctor: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    for c in checks:
        if c["status"] == "FAIL":
            progress.say(f"  FAIL {c['name']}: {c['evidence']}" + (f" (hint: {c['hint']})" if c["hint"] else ""))
    return checks, None


def _accelerator(checks: list[dict[str, str]], device: str | None) -> bool:
    if device:
        return not device.lower().startswith("cpu")
    return any(c["name"] == "torch sees the accelerator" and c["status"] == "PASS" for c in checks)


def _amp(checks: list[dict[str, str]]) -> str:
    passed = {c["name"] for c in checks if c["status"] == "PASS"}
    for mode in ("bf16", "fp16"):
        if f"{mode} autocast runs on the device" in passed:
            return mode
    return "off"


def _retry_hint(run_dirs: Sequence[Path]) -> str:
    if not run_dirs:
        return ""
    return "; the runs are kept: retry with `cardbench export " + " ".join(
        f"--run {shlex.quote(str(p))}" for p in run_dirs) + " -o DIR`"


def _error(message: str) -> None:
    try:
        print(f"cardbench: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _report_options(args: argparse.Namespace) -> dict[str, Any]:
    price = getattr(args, "price_per_hour", None)
    if price is not None and not (math.isfinite(price) and price >= 0):
        raise BundleError(f"--price-per-hour must be a number of 0 or more (0 for a free trial), not {price}")
    return {"price_per_hour": price, "currency": getattr(args, "currency", None) or "USD",
            "lang": getattr(args, "lang", None) or "en"}


def export_report(args: argparse.Namespace) -> int:
    """The headless suite and the bundle; see the module docstring."""
    output = Path(args.output or ".")
    try:
        options = _report_options(args)
        overrides = _overrides()
        check_output_dir(output)
        store = RunStore(getattr(args, "runs_dir", None))
        check_output_dir(store.root)
    except BundleError as exc:
        _error(str(exc))
        return EXIT_BAD_INPUT
    except OSError as exc:
        _error(f"cannot use the runs directory: {exc}")
        return EXIT_BAD_INPUT

    started = time.monotonic()
    workloads = getattr(args, "workloads", None)
    n_workloads = len(suite_names(workloads))
    progress = Progress(phases=n_workloads + 2)
    state = SuiteState()
    suite = getattr(args, "suite", None) or "quick"

    progress.begin("doctor")
    doctor, doctor_note = _doctor(progress)
    progress.end()
    accelerator = _accelerator(doctor, getattr(args, "device", None))
    state.accelerator = accelerator
    jobs, notes = suite_jobs(suite, workloads, accelerator=accelerator, device=getattr(args, "device", None),
                             amp=_amp(doctor), overrides=overrides)
    notes.insert(0, f"Suite: {suite}, run headless (`cardbench --export-report`); "
                    f"{'accelerator' if accelerator else 'no accelerator seen by torch: CPU'}.")

    sampler = _start_sampler(progress)
    try:
        asyncio.run(_run_suite(jobs, store, sampler, state, progress, doctor, suite))
    except RunStoreError as exc:
        _error(f"{exc}{_retry_hint(state.run_dirs)}")
        if not state.run_dirs:
            return EXIT_BAD_INPUT
        notes.append(f"the suite stopped early: {exc}")
        state.failed.append("run store")
    finally:
        sample = getattr(sampler, "latest", None) if sampler is not None else None
        if sampler is not None:
            sampler.stop()
    for name in state.out_of_time:
        notes.append(f"{name} was stopped at its share of the {_cpu_budget():.0f} s CPU time budget (so the "
                     "export ends within five minutes on a CPU-only machine); its figures come from the steps "
                     "it completed.")
    if state.interrupted:
        notes.append("The suite was interrupted (signal): the running workload was stopped and the rest skipped.")
    for job in jobs:
        if job.workload not in state.ran:
            notes.append(f"{job.workload} did not run (the suite was stopped before it).")

    progress.begin("report bundle")
    try:
        path = _build_bundle(state.run_dirs, output, progress, doctor, doctor_note, notes, sample, options)
    except BundleError as exc:
        _error(f"{exc}{_retry_hint(state.run_dirs)}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        _error(f"interrupted while writing the bundle (no partial zip is left){_retry_hint(state.run_dirs)}")
        return EXIT_INTERRUPTED
    progress.end()
    elapsed = time.monotonic() - started
    progress.say(f"done in {elapsed:.0f} s" + (f"; failed: {', '.join(state.failed)}" if state.failed else ""))
    try:
        print(path, flush=True)
    except (OSError, ValueError):
        pass
    if state.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if state.failed else EXIT_OK


def _build_bundle(run_dirs: list[Path], output: Path, progress: Progress, doctor: Any, doctor_note: str | None,
                  notes: list[str], sample: Any, options: dict[str, Any]) -> Path:
    from tui.report import export_bundle

    def show(message: str) -> None:
        if progress.tty:
            progress.update(None, message)
        else:
            progress.say(f"  {message}")

    return export_bundle(run_dirs, output, progress=show, doctor_checks=doctor,
                         doctor_note=doctor_note, notes=notes, sample=sample, **options)


def export_runs(args: argparse.Namespace) -> int:
    """`cardbench export --run DIR... [-o DIR]`: a bundle from runs already on disk."""
    output = Path(getattr(args, "output", None) or ".")
    run_dirs = [Path(p) for p in args.runs]
    try:
        options = _report_options(args)
        for path in run_dirs:
            if not path.is_dir():
                raise BundleError(f"{path} is not a directory (give a run directory, e.g. cardbench-runs/<run id>)")
            load_run(path)
        check_output_dir(output)
    except (BundleError, RunStoreError) as exc:
        _error(str(exc))
        return EXIT_BAD_INPUT
    doctor, doctor_note = None, None
    for path in run_dirs:
        try:
            doctor = json.loads((path / DOCTOR_FILE).read_text(encoding="utf-8"))
            doctor_note = Words(options["lang"])("doctor_from_run", run=path.name)
            break
        except (OSError, json.JSONDecodeError):
            continue
    progress = Progress(phases=1)
    progress.begin(f"report bundle from {len(run_dirs)} run(s)")
    try:
        path = _build_bundle(run_dirs, output, progress, doctor, doctor_note,
                             [Words(options["lang"])("from_disk")], None, options)
    except BundleError as exc:
        _error(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:
        _error("interrupted while writing the bundle (no partial zip is left)")
        return EXIT_INTERRUPTED
    progress.end()
    try:
        print(path, flush=True)
    except (OSError, ValueError):
        pass
    return EXIT_OK

