"""The verdict: the loader's figure against what the card consumes, and the storage's against both. Pure.

- storage-bound: the cold small-file rate (files/s, one image a file) is below what the card consumes and
  below what the loader gives from a warm cache: the first epoch waits on the disk. The advice names a local
  folder with room for the data.
- data-bound: no worker count reaches the card's rate.
- compute-bound: the fewest workers whose figure is at least the card's rate (with 10 % to spare, as a loader
  shares the CPU with the training loop) keep up: "use >= K worker(s)".
With no card rate the loader's best is given, and how to get a rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workloads.dataio.consumer import Consumer

HEADROOM = 1.10      # the loader must beat the card by this much to be said to keep up
NEAR_BEST = 0.95     # without a card rate: the fewest workers within 5 % of the best figure


@dataclass(frozen=True)
class Verdict:
    kind: str            # "compute-bound", "data-bound", "storage-bound", "no card rate", "no figure"
    line: str
    workers: int | None  # what to use
    images_per_s: float | None   # the loader's figure at those workers


def _rates(rows: Sequence[dict[str, Any]]) -> list[tuple[int, float]]:
    return [(int(r["workers"]), float(r["images_per_s"])) for r in rows
            if isinstance(r.get("images_per_s"), (int, float)) and r["images_per_s"] > 0]


def _n(value: float) -> str:
    return f"{value:,.0f}"


def judge(rows: Sequence[dict[str, Any]], consumer: Consumer | None, cold_files_s: float | None,
          data_bytes: int, room: tuple[str, int] | None, data_kind: str | None) -> Verdict:
    rates = _rates(rows)
    if not rates:
        return Verdict("no figure", "no loader setting gave a figure: see the log for why", None, None)
    best_workers, best = max(rates, key=lambda r: (r[1], -r[0]))
    if consumer is None:
        workers, rate = next(r for r in sorted(rates) if r[1] >= NEAR_BEST * best)
        return Verdict("no card rate", f"the loader gives {_n(rate)} images/s with {workers} worker(s); no card rate "
                       "to compare with: run `cardbench run resnet50` on this machine first, or pass "
                       "--consumer-rate IMAGES_PER_S", workers, rate)
    card = consumer.rate
    said = f"the card trains at {'up to ' if consumer.bound else ''}{_n(card)}"
    if cold_files_s is not None and cold_files_s < card and cold_files_s < best and data_kind != "memory":
        where = ("the local disk is the limit: a faster one (NVMe), or the data in memory (/dev/shm) where it "
                 "fits" if data_kind == "local" else
                 f"copy the data to local disk ({room[0]} has {room[1] / 1e9:,.0f} GB free)" if room else
                 f"copy the data to a local disk with {data_bytes / 1e9:,.1f} GB free (none found among the usual "
                 "places)")
        return Verdict("storage-bound", f"the storage gives {_n(cold_files_s)} files/s cold, the loader "
                       f"{_n(best)} images/s warm with {best_workers} worker(s); {said}: storage-bound: {where}",
                       best_workers, best)
    enough = [r for r in sorted(rates) if r[1] >= card * HEADROOM]
    if enough:
        workers, rate = enough[0]
        return Verdict("compute-bound", f"the loader gives {_n(rate)} images/s with {workers} worker(s); {said}: "
                       f"compute-bound, the loader keeps up; use >= {workers} worker(s)", workers, rate)
    return Verdict("data-bound", f"the loader gives {_n(best)} images/s with {best_workers} worker(s) (its best); "
                   f"{said}: data-bound: the card waits for data; more CPU cores, decoding on the device (DALI, "
                   "nvJPEG) or smaller stored images would feed it", best_workers, best)
