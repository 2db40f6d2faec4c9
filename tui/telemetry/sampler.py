"""The background sampler: one thread, one poll at a time, one immutable `Sample` per tick.

Polls never overlap: the next one is scheduled after the previous one ends, so
a slow CLI stretches a tick instead of piling threads up. The callback runs on
the sampler thread; a UI hands the sample to its own thread (Textual's
``call_from_thread``/``post_message``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from typing import Any, Callable, Sequence

from tui.telemetry.other_cpu import OtherCpu
from tui.telemetry.processes import OwnWorkload, attribute
from tui.telemetry.sample import Sample
from workloads.errors import first_line


class Sampler:
    """Samples every ``interval`` seconds on a daemon thread; ``latest`` is the newest `Sample`.

    ``set_sink(f)`` hands each sample's dict to ``f``: the one route by which telemetry
    reaches a run (`tui.session.RunSession.record_telemetry` writes it to the open run's
    telemetry.jsonl, flushed per line). ``callback`` gets the `Sample` itself, for a display.
    """

    def __init__(self, interval: float = 1.0, callback: Callable[[Sample], Any] | None = None,
                 collector: Any = None) -> None:
        if interval <= 0:
            raise ValueError(f"interval must be positive, not {interval!r}")
        self.interval = float(interval)
        self.callback = callback
        self._collector = collector
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._sink: Callable[[dict[str, Any]], Any] | None = None
        self.latest: Sample | None = None
        self.ticks = 0
        self.errors: list[str] = []  # problems of the sampler itself (callback, sink), newest last
        # cardbench's own workload children now (the session sets it): each card's processes are named by whose
        # they are, this container's or another's (tui.telemetry.processes)
        self.own_workloads: Callable[[], Sequence[OwnWorkload]] = tuple
        self._other_cpu: OtherCpu | None = None   # made on the first host reading (psutil)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> Sampler:
        if self.running:
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="cardbench-telemetry", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None
        self.set_sink(None)
        if self._collector is not None:
            self._collector.close()
            self._collector = None

    def set_sink(self, sink: Callable[[dict[str, Any]], Any] | None) -> None:
        """Hand each sample's dict to ``sink`` from now on; None stops it."""
        with self._lock:
            self._sink = sink

    def poll(self) -> Sample:
        """One tick, on the calling thread (the loop calls this; tests and the benchmark may too)."""
        if self._collector is None:
            from tui.telemetry.collect import Collector

            self._collector = Collector()
        sample = self._with_other_cpu(attribute(self._collector.collect(), self.own_workloads()))
        self.latest = sample
        self.ticks += 1
        with self._lock:
            if self._sink is not None:
                try:
                    self._sink(sample.to_dict())
                except Exception as exc:  # noqa: BLE001 - a closed run must not stop the sampling
                    self._note(f"sink: {first_line(exc, typed=True)}")
        if self.callback is not None:
            try:
                self.callback(sample)
            except Exception as exc:  # noqa: BLE001 - a UI bug must not stop the sampling
                self._note(f"callback: {first_line(exc, typed=True)}")
        return sample

    def _with_other_cpu(self, sample: Sample) -> Sample:
        """The host reading with the cores other processes than cardbench's used since the last tick (a run that
        shared its host says so: tui.telemetry.sharing); as it was where the host was not read."""
        if sample.host.cpu_count is None:
            return sample
        if self._other_cpu is None:
            self._other_cpu = OtherCpu()
        other = self._other_cpu.read()
        if other is None:
            return sample
        return dataclasses.replace(sample, host=dataclasses.replace(sample.host, other_cpu_cores=other))

    def _note(self, text: str) -> None:
        self.errors = (self.errors + [text])[-20:]

    def _loop(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            try:
                self.poll()
            except Exception as exc:  # noqa: BLE001
                self._note(f"poll: {first_line(exc, typed=True)}")
            next_at += self.interval
            now = time.monotonic()
            if next_at < now:  # a poll overran: skip the missed ticks rather than bursting
                next_at = now + self.interval
            self._stop.wait(next_at - now)


def read_jsonl(path: str | os.PathLike[str]) -> list[Sample]:
    """Samples from a telemetry.jsonl; a torn last line (killed mid-write) is skipped."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(Sample.from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError):
                continue
    return out
