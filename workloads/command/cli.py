"""`python -m workloads.command [--metric NAME=REGEX]... [--device D] -- CMD ARGS...` (`cardbench run command`).

The command (after `--`, or as one string in `--command`, the launcher's field) runs in its own
process group (:mod:`~workloads.jobs.job`); its output goes line by line to the run's log and is
read for progress (:mod:`~workloads.command.parsers`). Bad input (no command, one not on PATH, a
`--metric` that cannot work, an unknown `--device`) is refused before anything runs, so `cardbench run`
says it in one line, exit 2, with no run recorded. Events: ``start`` (the command, the figures asked
for), a ``step`` per count the log printed with the loss and rate it printed (and ``rate_as``, which
rate that is), one ``result`` (the median of those rates after the first few, the tool's own closing
figures, the exit code) even when the command fails or is stopped, and the end: ok when the command
exits 0; failed, naming its exit code (or signal) and last lines, when not. The run's end code is this
child's (1), not the command's: a command's 2 must not read as `cardbench run`'s "bad argument".
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
from typing import Any, Sequence

from workloads import exit_codes
from workloads.child.harness import (ArgumentParser, Emitter, Stopped, WorkloadError, arguments_checked, log,
                                     positive_float)
from workloads.child.cpu_fallback_option import MODES, WATCHED_STEPS
from workloads.command.anomalies import LossWatch
from workloads.command.fallback_check import WARMUP, FallbackCheck
from workloads.command.parsers import read
from workloads.command.parsers.reading import TRAIN
from workloads.command.parsers.custom import BadMetric, Metric, compile_metric
from workloads.command.progress import Tracker
from workloads.hints import fault_hint, first_device_fault, hint_for
from workloads.jobs.device_env import device_env
from workloads.jobs.job import Job, pump
from workloads.jobs.output import PEEK, LogCopy
from workloads.safe_text import one_line
from workloads.command.result_record import CommandResult

WORKLOAD = "command"
_NAMED_LINES = 3   # a failure names this many of the command's last lines
_SEARCHED_LINES = 400   # and searches this many for a device error (a torchrun traceback after it is long)
_LINE_CHARS = 200


def build_parser() -> ArgumentParser:
    p = ArgumentParser(
        prog=WORKLOAD,
        usage="%(prog)s [-h] [--metric NAME=REGEX]... [--grace S] [--device DEVICE] [--cpu-fallback-check MODE] "
              "-- CMD [ARGS...]",
        description="Your own job as a workload: its output goes to run.log and is read for progress (tqdm, "
                    "Hugging Face Trainer, PyTorch Lightning, timm, torchvision references, or --metric).")
    p.add_argument("--command", default=None, metavar="'CMD ARGS'",
                   help="the command as one string, split as a shell would (the launcher's field); "
                        "or give it after --")
    p.add_argument("--metric", action="append", default=[], metavar="NAME=REGEX",
                   help="a figure to read from every line: the regex's one group is the number. NAME loss, step "
                        "or epoch; a NAME with /s (tokens/s) is the throughput in that unit; any other is kept")
    p.add_argument("--grace", type=positive_float, default=3.0, metavar="S",
                   help="seconds between SIGTERM and SIGKILL when the job is stopped (default 3)")
    p.add_argument("--device", default="auto", metavar="DEVICE",
                   help="auto: the job's environment as it is (default); cpu: CUDA_VISIBLE_DEVICES and "
                        "HIP_VISIBLE_DEVICES set empty, so torch sees no GPU; cuda:N or N,M: CUDA_VISIBLE_DEVICES=N "
                        "(the job then sees that card as cuda:0)")
    p.add_argument("--cpu-fallback-check", choices=MODES, default="off",
                   help=f"on: profile {WATCHED_STEPS} optimizer steps after {WARMUP} of warm-up and name each op "
                        "that ran on the CPU; a Python job only (python SCRIPT or -m MODULE), run through a launcher "
                        "of ours. Default off (auto is off too): the job is yours, and the check changes how it "
                        "starts and profiles it")
    return p




def split_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """(our options, the command after `--`)."""
    items = list(argv)
    if "--" in items:
        at = items.index("--")
        return items[:at], items[at + 1:]
    return items, []


def command_of(option: str | None, after: list[str]) -> list[str]:
    if option is not None and after:
        raise WorkloadError("give the command once: after -- or with --command, not both")
    if option is not None:
        try:
            after = shlex.split(option)
        except ValueError as exc:
            raise WorkloadError(f"--command: cannot split {option!r} ({exc})") from None
    if not after:
        raise WorkloadError("no command: give it after --, e.g. `cardbench run command -- python train.py`",
                            hint="see `cardbench run command --help`")
    if shutil.which(after[0]) is None:
        raise WorkloadError(f"command not found: {after[0]}",
                            hint="check its name and PATH, or give its path (./train.sh needs to be executable)")
    return after


def metrics_of(texts: list[str]) -> tuple[Metric, ...]:
    try:
        return tuple(compile_metric(t) for t in texts)
    except BadMetric as exc:
        raise WorkloadError(str(exc)) from None


def _exit_words(code: int) -> tuple[str, int]:
    """How the command ended, and the code a shell would show ('killed by SIGKILL', 137)."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}", exit_codes.for_signal(-code)
    return f"exited with code {code}", code


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    own, after = split_argv(argv)
    args = build_parser().parse_args(own)
    command = command_of(args.command, after)
    check = FallbackCheck.of(args.cpu_fallback_check, command)
    metrics = metrics_of(args.metric)
    env, device = device_env(args.device)
    arguments_checked()

    job = Job(check.command, env={**os.environ, **env, **check.env()}, grace_s=args.grace)
    try:
        job.start()
    except OSError as exc:  # found on PATH but not runnable (a binary for another machine, a bad #! line)
        raise WorkloadError(f"cannot run {command[0]}: {exc.strerror or exc}") from None
    if not job.reaping:
        log("[cardbench] this system cannot make the run a subreaper (prctl needs Linux): a process the command "
            "moves out of its process group (setsid, a daemon) is not found, and not stopped at the end")
    emitter.start(WORKLOAD, {"command": command, "metrics": [m.name for m in metrics], "cwd": os.getcwd(),
                             "pid": job.pid, "grace_s": args.grace, "env": env,
                             "cpu_fallback_check": args.cpu_fallback_check},
                  device, {"python": sys.version.split()[0]})
    output = JobOutput(emitter, metrics)
    tracker, watch, copy = output.tracker, output.watch, output.copy
    try:
        pump(job, output.line, tracker.tick)
    except (Stopped, KeyboardInterrupt):
        job.stop(output.line, tracker.tick)
        copy.flush()
        emitter.result(CommandResult.of(
            _result(tracker, output.printed, output.understood, None, _stop_leftovers(job), watch, check, emitter)))
        raise
    copy.flush()
    printed, understood = output.printed, output.understood
    if printed and not understood:
        log("[cardbench] no line of the command's output was read as progress (tqdm, HF Trainer, Lightning, timm "
            "and torchvision are known): name your figures with --metric NAME=REGEX, e.g. "
            "--metric 'loss=loss: ([0-9.]+)' --metric 'tokens/s=([0-9.]+) tok/s'")
    job.release()
    code = job.process.poll() if job.process else None
    emitter.result(CommandResult.of(
        _result(tracker, printed, understood, code, _stop_leftovers(job), watch, check, emitter)))
    if code == 0:
        return exit_codes.OK
    said, _ = _exit_words(code if code is not None else -signal.SIGKILL)
    last = [one_line(line, _LINE_CHARS) for line in list(copy.tail)[-_NAMED_LINES:]]   # the job's words, defused
    fault = first_device_fault(copy.tail)
    fault = one_line(fault, _LINE_CHARS) if fault else None
    message = (f"the command {said}" + (f"; device error: {fault}" if fault and fault not in last else "")
               + (f"; its last lines: {' | '.join(last)}" if last else " and printed nothing"))
    hint = fault_hint(copy.tail) if fault else hint_for(" ".join(last))
    emitter.error(message, hint or "run.log has all of the command's output")
    # the run's end is this child's: failed (1), whatever the command's code, which the error names and the
    # result keeps (a command's 2 is not `cardbench run`'s "bad argument, nothing ran")
    return exit_codes.FAILED


class JobOutput:
    """The job's lines as they come: copied to run.log, read for progress (step events) and loss anomalies, counted."""

    def __init__(self, emitter: Emitter, metrics: Sequence[Metric]):
        self.metrics = metrics
        self.tracker = Tracker(emit_step=emitter.step)
        self.watch = LossWatch(lambda code, message: emitter.warning(message, code=code))
        self.copy = LogCopy(log, tail=_SEARCHED_LINES)
        self.printed = self.understood = 0
        self.peeked: str | None = None  # a redraw read as it stood (PEEK): read once, when it ends it is only logged

    def line(self, text: str, ended: str) -> None:
        self.copy.line(text, ended)
        if ended != PEEK:
            self.printed += bool(text.strip())
            seen, self.peeked = text == self.peeked, None
            if seen:
                return
        else:
            self.peeked = text
        reading = read(text, self.metrics)
        if reading is not None:
            self.understood += 1
            self.tracker.see(reading)
            if reading.kind == TRAIN:
                self.watch.see(reading.count or self.tracker.step_now(), reading.loss, reading.values.get("grad_norm"))


def _stop_leftovers(job: Job) -> int:
    """What the job left running outside its group (setsid, a daemon) is stopped too, and said."""
    left = job.stop_leftovers()
    if left:
        log(f"[cardbench] stopped {len(left)} process{'es' if len(left) > 1 else ''} the command left running "
            f"outside its process group (setsid or a daemon): pid {', '.join(map(str, left))}")
    return len(left)


def _result(tracker: Tracker, lines: int, understood: int, code: int | None, leftovers: int = 0,
            watch: LossWatch | None = None, check: FallbackCheck | None = None,
            emitter: Emitter | None = None) -> dict[str, Any]:
    out = tracker.result()
    if check is not None and emitter is not None:
        out.update(check.collect(emitter))   # the job has ended: what its launcher saw, said before the result
    out.update(lines=lines, lines_read=understood, leftover_processes_stopped=leftovers)
    if watch is not None:
        out.update({f"anomalies_{code}": n for code, n in watch.counts.items()})
    if code is not None:
        out["exit_code"] = _exit_words(code)[1]
    return out
