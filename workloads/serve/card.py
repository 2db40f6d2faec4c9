"""What the card did during each level: the parent's sampler writes the run's telemetry (as for every workload),
and this reads it back as it grows (workloads.rundir.telemetry_tail), so each level's row carries the mean
utilisation, the peak memory and the mean power of the samples taken while it ran."""

from __future__ import annotations

import os
from statistics import fmean
from typing import Any

from workloads.facts.missing import finite_or_none
from workloads.protocol import RUN_DIR_ENV
from workloads.rundir.sample_fields import DEVICES, MEM_USED_BYTES, POWER_W, T, UTIL_GPU_PCT
from workloads.rundir.telemetry_tail import TelemetryTail


class CardDuringLevels:
    def __init__(self, run_dir: str | None = None):
        run_dir = run_dir if run_dir is not None else os.environ.get(RUN_DIR_ENV)
        self.tail = TelemetryTail.of_run(run_dir)

    def during(self, start: float, end: float) -> dict[str, Any]:
        """Figures of the samples taken in [start, end] (wall clock); the GPUs' utilisation averaged over them,
        their memory summed then its peak, their power summed then averaged (the server's whole draw)."""
        util, memory, power, seen = [], [], [], 0
        for sample in self.tail.samples():
            t = finite_or_none(sample.get(T))
            devices = [d for d in sample.get(DEVICES) or () if isinstance(d, dict)]
            if t is None or not start <= t <= end or not devices:
                continue
            seen += 1
            for key, into, join in ((UTIL_GPU_PCT, util, fmean), (MEM_USED_BYTES, memory, sum), (POWER_W, power, sum)):
                values = [v for v in (finite_or_none(d.get(key)) for d in devices) if v is not None]
                if values:
                    into.append(join(values))
        return {"card_samples": seen, "card_util_pct": fmean(util) if util else None,
                "card_mem_peak_bytes": max(memory) if memory else None, "card_power_w": fmean(power) if power else None}

    def close(self) -> None:
        self.tail.close()
