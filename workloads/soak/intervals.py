"""The soak's intervals: what each one saw of the workload and of every device, in memory bounded by one interval.

Steps, runs, errors, telemetry samples and Xid lines are filed by their own time into the interval
``[t0 + k * interval_s, t0 + (k + 1) * interval_s)`` (the last one ends with the soak). An interval is
closed a few seconds after its end (:data:`GRACE_S`: the sampler writes a tick's sample after reading
it), and then becomes one row: a plain dict, handed to the caller (the soak judges it and keeps its cells
for intervals.csv). Only the open intervals hold raw values, so a day-long soak holds about two
intervals' worth at any time.

Per device and interval: the SM clock's range, the temperature and power peaks, the seconds each
clock-event (throttle) reason was active, the seconds its own tool called it not in order (npu-smi's Health,
mx-smi's state: `workloads.card_health`), and the change of each error counter over the interval
(ECC corrected and uncorrected, remapped rows, retired pages, PCIe replays, NVML's power and thermal
violation time), read against its value at the previous interval's close.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from workloads.card_health import health_level
from workloads.facts.missing import finite_or_none
from workloads.rundir.sample_fields import (BUS_ID, COUNTERS, DEVICES, HEALTH, INDEX, MEM_TOTAL_BYTES, MEM_USED_BYTES,
                                            POWER_W, SM_CLOCK_MHZ, T, TEMPERATURE_C, THERMAL_VIOLATION_S,
                                            THROTTLE_REASONS)

GRACE_S = 3.0
MAX_GAP_S = 5.0        # a gap between two samples longer than this (the sampler stalled) is not counted as throttling
FIRST_TICK_S = 1.0     # a device's first sample stands for one sampler tick
THERMAL_REASONS = ("sw thermal", "hw thermal")
# what an interval's unwell_s calls a card whose tool read more memory in use than the card has
OVER_TOTAL = "memory used above total"
# reasons that say nothing about the card's health (an idle card, clocks set by the user)
QUIET_REASONS = ("idle", "app clocks", "display clocks", "sync boost")
# latency figures a step may carry, in ms (serve's: one level's percentiles over its requests, vLLM's definitions,
# workloads.serve.figures); an interval holds the median of each over its steps, and its drift against the first's
LATENCY = ("ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99")


def device_name(d: dict[str, Any]) -> str:
    index = d.get(INDEX)
    return f"GPU{index}" if isinstance(index, int) and not isinstance(index, bool) else str(d.get(BUS_ID) or "GPU?")


@dataclass
class _Device:
    samples: int = 0
    clock_min: float | None = None
    clock_max: float | None = None
    temp_peak: float | None = None
    power_peak: float | None = None
    reasons: dict[str, float] = field(default_factory=dict)     # reason -> seconds active
    unwell: dict[str, float] = field(default_factory=dict)      # the tool's word for a card not in order -> seconds
    last: dict[str, float] = field(default_factory=dict)        # counter -> its last value in the interval
    first: dict[str, float] = field(default_factory=dict)

    def see(self, d: dict[str, Any], dt: float) -> None:
        self.samples += 1
        for name, key, pick in (("clock_min", SM_CLOCK_MHZ, min), ("clock_max", SM_CLOCK_MHZ, max),
                                ("temp_peak", TEMPERATURE_C, max), ("power_peak", POWER_W, max)):
            value = finite_or_none(d.get(key))
            if value is not None:
                held = getattr(self, name)
                setattr(self, name, value if held is None else pick(held, value))
        reasons = d.get(THROTTLE_REASONS)
        if isinstance(reasons, list):
            for reason in reasons:
                if isinstance(reason, str):
                    self.reasons[reason] = self.reasons.get(reason, 0.0) + dt
        health = d.get(HEALTH)
        used, total = finite_or_none(d.get(MEM_USED_BYTES)), finite_or_none(d.get(MEM_TOTAL_BYTES))
        if health_level(health, used, total) is not None:
            word = health if isinstance(health, str) and health_level(health) else OVER_TOTAL
            self.unwell[word] = self.unwell.get(word, 0.0) + dt
        for key in COUNTERS:
            value = finite_or_none(d.get(key))
            if value is not None:
                self.first.setdefault(key, value)
                self.last[key] = value


@dataclass
class _Window:
    index: int
    start: float
    end: float
    devices: dict[str, _Device] = field(default_factory=dict)
    throughputs: dict[str, list[float]] = field(default_factory=dict)   # workload -> this interval's step rates
    units: dict[str, str] = field(default_factory=dict)
    latency: dict[str, dict[str, list[float]]] = field(default_factory=dict)   # workload (level) -> figure -> values
    steps: int = 0
    runs: int = 0
    errors: list[str] = field(default_factory=list)
    restarts: int = 0
    xids: list[dict[str, Any]] = field(default_factory=list)
    samples: int = 0


class IntervalBook:
    """Files what the soak sees into intervals and turns each closed one into a row."""

    def __init__(self, t0: float, interval_s: float, end_t: float | None = None, grace_s: float = GRACE_S):
        self.t0, self.interval_s, self.end_t, self.grace_s = t0, float(interval_s), end_t, grace_s
        self.closed = 0                                # rows handed out (the book keeps none)
        self.first_median: dict[str, float] = {}       # workload -> its first interval's median rate
        self.first_latency: dict[str, dict[str, float]] = {}   # workload (level) -> figure -> first interval's median
        self._open: dict[int, _Window] = {}
        self._next = 0                                 # the first interval not closed yet
        self._counter_at_close: dict[tuple[str, str], float] = {}
        self._last_seen: dict[str, float] = {}         # device -> time of its last sample

    # --- filing
    def _index(self, t: float) -> int:
        k = int((t - self.t0) // self.interval_s) if t >= self.t0 else 0
        if self.end_t is not None and t >= self.end_t:
            k = min(k, self._last_index())
        return max(k, self._next)      # late news of a closed interval goes to the first open one

    def _last_index(self) -> int:
        assert self.end_t is not None
        return max(0, int((self.end_t - self.t0 - 1e-9) // self.interval_s))

    def _window(self, t: float) -> _Window:
        k = self._index(t)
        w = self._open.get(k)
        if w is None:
            w = self._open[k] = _Window(k, self.t0 + k * self.interval_s, self._end_of(k))
        return w

    def _end_of(self, k: int) -> float:
        start = self.t0 + k * self.interval_s
        if self.end_t is not None and k >= self._last_index():
            return max(self.end_t, start)
        return start + self.interval_s

    def add_sample(self, sample: dict[str, Any]) -> None:
        t = sample[T]
        w = self._window(t)
        w.samples += 1
        for d in sample.get(DEVICES) or ():
            name = device_name(d)
            before = self._last_seen.get(name)
            dt = FIRST_TICK_S if before is None else min(max(t - before, 0.0), MAX_GAP_S)
            self._last_seen[name] = t
            w.devices.setdefault(name, _Device()).see(d, dt)

    def add_step(self, t: float, workload: str, throughput: float | None, unit: str | None,
                 warmup: bool = False, latency: dict[str, float] | None = None) -> None:
        """``latency``: the step's figures of :data:`LATENCY`; ``workload`` names the level they are of, when the
        workload runs several (a level's latency is only comparable with the same level's)."""
        w = self._window(t)
        w.steps += 1
        if throughput is not None and not warmup:
            w.throughputs.setdefault(workload, []).append(throughput)
            if unit:
                w.units[workload] = unit
        if latency and not warmup:
            held = w.latency.setdefault(workload, {})
            for key, value in latency.items():
                held.setdefault(key, []).append(value)

    def add_run(self, t: float, restart: bool) -> None:
        w = self._window(t)
        w.runs += 1
        w.restarts += restart

    def add_error(self, t: float, message: str) -> None:
        self._window(t).errors.append(message)

    def add_xid(self, t: float, code: int, where: str, line: str) -> None:
        self._window(t).xids.append({"t": t, "code": code, "where": where, "line": line})

    # --- closing
    def next_close_at(self) -> float:
        """When the first open interval may be closed (its end and the grace)."""
        return self._end_of(self._next) + self.grace_s

    def close_due(self, now: float) -> list[dict[str, Any]]:
        """Close every interval that ended at least ``grace_s`` before ``now``; their rows, in order."""
        out = []
        while self.end_t is None or self._next <= self._last_index():
            if self._end_of(self._next) + self.grace_s > now:
                break
            out.append(self._close(self._next))
        return out

    def close_all(self, now: float) -> list[dict[str, Any]]:
        """Close what is open up to ``now`` (the soak ended or was stopped): the last row may be short."""
        self.end_t = min(self.end_t, now) if self.end_t is not None else now
        out = []
        last = self._last_index()
        while self._next <= last:
            out.append(self._close(self._next))
        return out

    def _close(self, k: int) -> dict[str, Any]:
        w = self._open.pop(k, None) or _Window(k, self.t0 + k * self.interval_s, self._end_of(k))
        w.end = self._end_of(k)   # the soak may have ended early since the window opened
        self._next = k + 1
        self.closed += 1
        return self._row(w)

    def _row(self, w: _Window) -> dict[str, Any]:
        duration = max(w.end - w.start, 1e-9)
        rates: dict[str, dict[str, Any]] = {}
        for name, values in w.throughputs.items():
            median = statistics.median(values)
            first = self.first_median.setdefault(name, median)
            rates[name] = {"median": median, "unit": w.units.get(name, ""), "steps": len(values),
                           "drift_pct": 100.0 * (median / first - 1.0) if first else None}
        latency: dict[str, dict[str, Any]] = {}
        for name, figures in w.latency.items():
            first = self.first_latency.setdefault(name, {})
            row: dict[str, Any] = {"steps": max(len(v) for v in figures.values())}
            for key in LATENCY:
                if key in figures:
                    median = row[key] = statistics.median(figures[key])
                    base = first.setdefault(key, median)
                    row[f"{key}_drift_pct"] = 100.0 * (median / base - 1.0) if base else None
            latency[name] = row
        devices: dict[str, dict[str, Any]] = {}
        for name, d in sorted(w.devices.items()):
            deltas = {}
            for key in COUNTERS:
                if key not in d.last:
                    continue
                before = self._counter_at_close.get((name, key), d.first[key])
                deltas[key] = d.last[key] - before
                self._counter_at_close[(name, key)] = d.last[key]
            thermal = sum(d.reasons.get(r, 0.0) for r in THERMAL_REASONS)
            thermal = max(thermal, deltas.get(THERMAL_VIOLATION_S, 0.0))
            devices[name] = {"samples": d.samples, "sm_clock_min_mhz": d.clock_min, "sm_clock_max_mhz": d.clock_max,
                             "temperature_peak_c": d.temp_peak, "power_peak_w": d.power_peak,
                             "throttle_s": {r: round(s, 1) for r, s in sorted(d.reasons.items())},
                             "thermal_share": min(1.0, thermal / duration), "deltas": deltas,
                             "unwell_s": {word: round(s, 1) for word, s in sorted(d.unwell.items())}}
        return {"interval": w.index + 1, "start": w.start, "end": w.end, "duration_s": w.end - w.start,
                "steps": w.steps, "rates": rates, "latency": latency, "runs": w.runs, "restarts": w.restarts, "errors": list(w.errors),
                "xids": sorted(w.xids, key=lambda x: x["t"]), "samples": w.samples, "devices": devices}
