"""The soak: one workload (or an alternation, or the user's command) for hours, watched interval by interval.

Run as ``python -m workloads.soak --hours H --workload resnet50[,generate] [--args '...'] [-- CMD ...]``
(``cardbench soak``). Each inner run is a child of this process (`python -m workloads.<name>`, through the
same :class:`~workloads.runner.Runner` the workbench uses), started again and again until the hours are up;
its steps are forwarded as the soak's own (numbered across runs, ``inner`` naming the workload; at most one a
second, ``inner_steps`` saying how many it stands for, while the intervals count every one), its
warnings and errors as warnings, and its stderr goes to the soak's log. A failed run is counted, and the
next one is a restart.

Every interval (``--interval``, default 10 min) is closed into a row (`workloads.soak.intervals`): it goes to
``intervals.csv`` in the run directory (rewritten whole each time), to the log, and its findings come as
``warning`` events at once. At the end (or on SIGTERM, after closing the interval in progress) the result
carries the verdict, its findings, the rules and the rows, and ``verdict.txt`` says the same in words.

Telemetry is the run's own: the runner's sampler writes ``$CARDBENCH_RUN_DIR/telemetry.jsonl`` and the soak
reads it as it grows (`workloads.rundir.telemetry_tail`). Xid lines come from the kernel log
(`workloads.soak.kernel`).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shlex
import signal
import time
from contextlib import suppress
from pathlib import Path
from typing import Any, Callable, Sequence

from workloads import exit_codes, protocol, registry
from workloads.child.harness import (ArgumentParser, Emitter, Stopped, WorkloadError, arguments_checked, log,
                                     positive_float)
from workloads.facts.missing import is_finite
from workloads.rundir.telemetry_tail import TelemetryTail
from workloads.runner import Runner
from workloads.soak import table
from workloads.soak.intervals import LATENCY, IntervalBook
from workloads.soak.kernel import KernelLog
from workloads.soak.plan import WORKLOAD, add_options, plan
from workloads.soak.verdict import Finding, findings_of, rules, verdict_of
from workloads.soak.result_record import SoakResult

POLL_S = 2.0                   # how often the telemetry file is read
KERNEL_POLL_S = 30.0           # how often dmesg is read (and at every interval's close)
RESTART_DELAY_S = 1.0          # after a failed run, so a workload that fails at once does not spin
STOP_GRACE_S = 3.0            # the inner run's grace: the soak must close and write its verdict within its own (5 s)
STEADY_MARGIN_S = 30.0        # a steady run is asked for this much past the soak's end (which stops it): its own
                              # clock starts after its start-up, and it must not end a moment before the soak does
# at most one forwarded step a second: a day of a fast workload (hundreds of steps/s) would otherwise be tens of
# millions of events; the intervals still count every step, and the forwarded one says how many it stands for
FORWARD_EVERY_S = 1.0


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog=WORKLOAD, description="Run a workload for hours and judge the card interval by interval.")
    add_options(p, positive_float)
    return p


class _ToLog:
    """The inner run's stderr goes to the soak's (the run log); its events come through the queue, not here."""

    def __init__(self, name: str):
        self.name = name

    def append(self, event: protocol.Event) -> None:
        pass

    def log(self, line: str) -> None:
        log(line)


class Soak:
    def __init__(self, em: Emitter, runs: list[tuple[str, list[str]]], args: Any, now: float | None = None,
                 clock: Callable[[], float] = time.time):
        # every deadline, interval close and poll reads ``clock`` (a test's fake one runs an hour in a moment)
        self.em, self.runs, self.args, self.clock = em, runs, args, clock
        self.t0 = clock() if now is None else now
        self.deadline = self.t0 + args.hours * 3600.0
        self.book = IntervalBook(self.t0, args.interval, self.deadline)
        run_dir = os.environ.get(protocol.RUN_DIR_ENV)
        self.out = args.out or (Path(run_dir) if run_dir else None)
        self.tail = TelemetryTail.of_run(run_dir)
        self.kernel = KernelLog()
        self.started = False
        self.step = 0
        self._forwarded_at = float("-inf")
        self._unforwarded = 0
        self.failed_last = False
        self.counts = {"runs": 0, "failed_runs": 0, "errors": 0, "restarts": 0}
        self.stop = asyncio.Event()
        # what the soak keeps of each closed interval: its cells and its findings (a day: 144 short rows)
        self.cells: list[dict[str, str]] = []
        self.worsts = table.Worsts()   # the result's worst drifts, from the rows' figures
        self.findings: list[Finding] = []
        self.devices_seen = self.rates_seen = False
        self.xids = 0
        self._next_poll = self._next_kernel = 0.0
        self._unwatched: list[str] = []

    # --- events of the inner run
    def _start(self, device: str = "", versions: dict[str, Any] | None = None) -> None:
        if self.started:
            return
        self.started = True
        config = {"hours": self.args.hours, "interval_s": self.args.interval, "started": self.t0,
                  "workloads": [name for name, _ in self.runs], "args": {n: a for n, a in self.runs},
                  "drift_limit_pct": self.args.drift_limit, "thermal_share": self.args.thermal_share,
                  "latency_limit_pct": self.args.latency_limit}
        # dated when the soak began (it waited for its first inner run to name the device): the run lasts the soak
        self.em.emit(protocol.Start(t=self.t0, workload=WORKLOAD, config=config, device=device, versions=versions or {}))

    def _inner(self, name: str, event: protocol.Event) -> None:
        if isinstance(event, protocol.Start):
            self._start(event.device, event.versions)
            return
        self._start()
        if isinstance(event, protocol.Step):
            warmup = event.extra.get("warmup") is True
            # a serving workload's step is one load level, with its TTFT/TPOT percentiles over the level's requests
            latency = {k: v for k in LATENCY if is_finite(v := event.extra.get(k))}
            level = event.extra.get("level")
            # keyed by its level even without latency (every request failed): its throughput drift is judged per level
            self.book.add_step(event.t, f"{name} {level}" if isinstance(level, str) else name,
                               event.throughput, event.unit, warmup, latency)
            self.step += 1
            self._unforwarded += 1
            if event.t - self._forwarded_at < FORWARD_EVERY_S:
                return
            self._forwarded_at, steps, self._unforwarded = event.t, self._unforwarded, 0
            fields = {k: getattr(event, k) for k in ("loss", "throughput", "unit", "step_s", "data_wait_s",
                                                     "compute_s", "memory_allocated_bytes", "throughput_window")
                      if getattr(event, k) is not None}
            self.em.step(self.step, t=event.t, inner=name, inner_step=event.step, inner_steps=steps,
                         **({"warmup": True} if warmup else {}), **fields)
        elif isinstance(event, protocol.Error):
            self.counts["errors"] += 1
            said = f"{name}: {event.message}" + (f" (hint: {event.hint})" if event.hint else "")
            self.book.add_error(event.t, said)
            self.em.warning(said, code="soak_inner_error")
        elif isinstance(event, (protocol.WorkloadWarning, protocol.Fallback)):
            self.em.warning(f"{name}: {event.describe()}", code="soak_inner_warning")

    # --- the loop
    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        with suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, self.stop.set)
        self.kernel.start()
        if self.kernel.problem:
            self._unwatched.append(f"kernel log not read ({self.kernel.problem}): Xid events were not checked")
            self.em.warning(self._unwatched[-1], code="soak_unwatched")
        for name, args in itertools.cycle(self.runs):
            if self._over():
                break
            code = await self._one_run(name, args)
            if code == exit_codes.BAD_INPUT and self.counts["runs"] <= len(self.runs):
                raise WorkloadError(f"{name} refused its arguments {shlex.join(args)!r} (exit 2); see the log",
                                    hint="check them with `cardbench run " + name + " ... --help`")
            if self.failed_last and not self._over():
                await self._wait(RESTART_DELAY_S)

    def _over(self) -> bool:
        return self.stop.is_set() or self.clock() >= self.deadline

    async def _one_run(self, name: str, args: list[str]) -> int | None:
        now = self.clock()
        restart = self.failed_last
        self.counts["runs"] += 1
        self.counts["restarts"] += restart
        self.book.add_run(now, restart)
        spec = registry.get(name)
        if spec is not None and spec.steady is not None:   # its load kept on for the rest of the soak, not run after run
            args = spec.steady(args, self.deadline - now + STEADY_MARGIN_S, self.args.interval)
        log(f"soak: {'restart' if restart else 'run'} {self.counts['runs']}: {name} {shlex.join(args)}".rstrip())
        runner = Runner.for_workload(name, args, run=_ToLog(name), grace_s=STOP_GRACE_S)
        queue: asyncio.Queue[protocol.Event | None] = asyncio.Queue()

        async def pump() -> None:
            try:
                async for event in runner.events():
                    await queue.put(event)
            finally:
                await queue.put(None)

        task = asyncio.create_task(pump())
        end: protocol.End | None = None
        stopping = False
        try:
            while True:
                if self._over() and not stopping:
                    stopping = True
                    asyncio.ensure_future(runner.stop())   # its end comes through the queue
                try:
                    event = await asyncio.wait_for(queue.get(), timeout=self._timeout())
                except asyncio.TimeoutError:
                    self._housekeeping()
                    continue
                if event is None:
                    break
                if isinstance(event, protocol.End):
                    end = event
                else:
                    self._inner(name, event)
                self._housekeeping()
        finally:
            if not task.done():
                await runner.stop(grace_s=STOP_GRACE_S)
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
        ok = end is not None and (end.status == "ok" or (stopping and end.status == "stopped"))
        self.failed_last = not ok
        if not ok:
            self.counts["failed_runs"] += 1
        log(f"soak: {name} ended {end.status if end else 'without an end'}"
            + (f" (exit code {end.exit_code})" if end and end.exit_code is not None else ""))
        return end.exit_code if end else None

    def _timeout(self) -> float:
        now = self.clock()
        return max(0.05, min(self._next_poll, self.deadline + 0.01) - now) if not self.stop.is_set() else 0.05

    async def _wait(self, seconds: float) -> None:
        until = min(self.clock() + seconds, self.deadline)
        while self.clock() < until and not self.stop.is_set():
            await asyncio.sleep(min(0.2, max(0.0, until - self.clock())))
            self._housekeeping()

    def _housekeeping(self, final: bool = False) -> None:
        now = self.clock()
        closing = now >= self.book.next_close_at()
        if final or closing or now >= self._next_poll:    # the samples up to an interval's end before it closes
            self._next_poll = now + POLL_S
            for sample in self.tail.samples():
                self.book.add_sample(sample)
        if final or closing or now >= self._next_kernel:
            # the kernel log before an interval closes: its Xid lines belong in it
            self._next_kernel = now + KERNEL_POLL_S
            for x in self.kernel.new(now):
                self.book.add_xid(x.t, x.code, x.where, x.line)
        due = self.book.close_all(min(now, self.deadline)) if final else self.book.close_due(now)
        for row in due:
            self._closed(row)

    def _closed(self, row: dict[str, Any]) -> None:
        self._start()
        cells = table.flat(row)
        self.cells.append(cells)
        self.worsts.see(row)
        self.devices_seen = self.devices_seen or bool(row["devices"])
        self.rates_seen = self.rates_seen or bool(row["rates"])
        self.xids += len(row["xids"])
        log(f"soak: interval {row['interval']} closed: " + ", ".join(f"{k}={v}" for k, v in cells.items() if v))
        found = findings_of(row, drift_limit_pct=self.args.drift_limit, thermal_share=self.args.thermal_share,
                            latency_limit_pct=self.args.latency_limit)
        self.findings += found
        for f in found:
            self.em.warning(f"soak {f.level}: {f.text}", code="soak_finding", level=f.level, rule=f.rule)
        self._write_csv()

    def _write_csv(self) -> None:
        if self.out is None:
            return
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            table.write_csv(self.out / table.INTERVALS_CSV, self.cells)
        except OSError as exc:
            log(f"soak: {table.INTERVALS_CSV} could not be written in {self.out}: {exc}")

    # --- the end
    def finish(self, stopped: bool) -> dict[str, Any]:
        self._housekeeping(final=True)   # the last samples and Xid lines, then the interval in progress
        self.tail.close()
        unwatched = list(self._unwatched)
        judged = sum(1 for c in self.cells if c.get("throughput"))
        if judged < 2 and (judged or not self.cells):
            # drift is an interval against the first: with fewer than two there is nothing to judge, and a PASS
            # would claim what was never measured (none with throughput at all: verdict_of's 'no throughput' says it)
            unwatched.append(f"{'stopped after' if stopped else 'only'} {judged} interval(s) with throughput: drift "
                             f"was not judged (it needs two; run for more than twice --interval {self.args.interval:g} s)")
        if self.tail.skipped:
            unwatched.append(f"{self.tail.skipped} telemetry line(s) could not be read")
        cells = self.cells
        verdict, findings = verdict_of(self.findings, devices_seen=self.devices_seen or not cells,
                                       rates_seen=self.rates_seen or not cells, unwatched=unwatched)
        the_rules = rules(self.args.drift_limit, self.args.thermal_share, self.args.latency_limit)
        ran = self.clock() - self.t0
        took = f"{ran / 3600:.2f} h of {self.args.hours:g} h" if self.args.hours >= 1 else \
            f"{ran / 60:.1f} min of {self.args.hours * 60:g} min"
        summary = [f"ran {took}" + (" (stopped early)" if stopped else "")
                   + f"; {len(cells)} interval(s) of {self.args.interval:g} s; runs {self.counts['runs']}, "
                   f"failed {self.counts['failed_runs']}, restarts {self.counts['restarts']}, "
                   f"errors {self.counts['errors']}"]
        log("soak: per interval\n" + table.terminal_table(cells))
        text = table.verdict_text(verdict, findings, the_rules, summary)
        log(text.rstrip())
        if self.out is not None:
            self._write_csv()
            try:
                (self.out / table.VERDICT_TXT).write_text(text, encoding="utf-8")
            except OSError as exc:
                log(f"soak: {table.VERDICT_TXT} could not be written in {self.out}: {exc}")
        first = next(iter(self.book.first_median.items()), None)
        metrics: dict[str, Any] = {
            "verdict": verdict, "findings_count": len(findings),
            "findings": [f.to_dict() for f in findings], "rules": the_rules, "intervals": cells,
            "hours": round(ran / 3600, 4), "hours_planned": self.args.hours, "interval_s": self.args.interval,
            "stopped_early": stopped, **self.counts, "xid_count": self.xids,
            # one interval is the baseline itself: its 0 % is no measurement of drift
            "drift_worst_pct": self.worsts.drift() if judged >= 2 else None,
        }
        if self.worsts.latency_change() is not None:   # a serving workload
            metrics["latency_drift_worst_pct"] = self.worsts.latency_change()
        if first is not None:
            metrics["first_interval_median"] = first[1]
            metrics["first_workload"] = first[0]
        # short lines, so the report's list of result metrics shows the findings and the rules they broke
        for i, f in enumerate(findings[:20], start=1):
            metrics[f"finding_{i}"] = f"{f.level} {f.text}"[:190]
        for i, rule in enumerate(the_rules, start=1):
            metrics[f"rule_{i}"] = rule
        return metrics


def main(em: Emitter, argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    runs = plan(args, registry.names())
    arguments_checked()
    soak = Soak(em, runs, args)
    try:
        asyncio.run(soak.run())
    finally:
        # whatever ended it, what was gathered is closed, written and reported
        stopped = soak.stop.is_set()
        soak._start()
        em.result(SoakResult.of(soak.finish(stopped)))
    if stopped:
        raise Stopped()
    return exit_codes.OK
