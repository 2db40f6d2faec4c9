"""The verdict: the loader's figure against what the card consumes, and the storage's against both. Pure.

- storage-bound: the cold small-file rate (files/s, one image a file) is below what the card consumes and
  below what the loader gives from a warm cache: the first epoch waits on the disk. The advice names a local
  folder with room for the data.
- data-bound: no worker count reaches the card's rate.
- compute-bound: the fewest workers whose figure is at least the card's rate (with 10 % to spare, as a loader
  shares the CPU with the training loop) keep up: "use K or more worker(s)".
With no card rate the loader's best is given, and how to get a rate.

The card's rate is the one at the loader's image size (`Consumer.at`), so both sides are per image of one size.
Advice never names 0 workers: a loader in the training process (num_workers=0) decodes in the step's own time,
so the sweep's 0-worker row is a reference, not a setting to train with. The words are `words.verdict_words`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

HEADROOM = 1.10      # the loader must beat the card by this much to be said to keep up
NEAR_BEST = 0.95     # without a card rate: the fewest workers within 5 % of the best figure
COMPUTE, DATA, STORAGE, NO_CARD, NO_FIGURE = ("compute-bound", "data-bound", "storage-bound", "no card rate",
                                              "no figure")


@dataclass(frozen=True)
class Verdict:
    kind: str            # COMPUTE, DATA, STORAGE, NO_CARD or NO_FIGURE
    workers: int | None  # what to use (at least one)
    images_per_s: float | None   # the loader's figure at those workers


def _rates(rows: Sequence[dict[str, Any]]) -> list[tuple[int, float]]:
    """(workers, images/s) of the settings that gave a figure: those with workers, else (every one failed) the
    in-process one, advised as one worker."""
    rates = [(int(r["workers"]), float(r["images_per_s"])) for r in rows
             if isinstance(r.get("images_per_s"), (int, float)) and r["images_per_s"] > 0]
    return [r for r in rates if r[0] >= 1] or [(1, rate) for _, rate in rates]


def judge(rows: Sequence[dict[str, Any]], card: float | None, cold_files_s: float | None,
          data_kind: str | None) -> Verdict:
    """``card``: the images/s the card trains at, at the loader's image size (None: not known)."""
    rates = _rates(rows)
    if not rates:
        return Verdict(NO_FIGURE, None, None)
    best_workers, best = max(rates, key=lambda r: (r[1], -r[0]))
    if card is None:
        workers, rate = next(r for r in sorted(rates) if r[1] >= NEAR_BEST * best)
        return Verdict(NO_CARD, workers, rate)
    if cold_files_s is not None and cold_files_s < card and cold_files_s < best and data_kind != "memory":
        return Verdict(STORAGE, best_workers, best)
    enough = [r for r in sorted(rates) if r[1] >= card * HEADROOM]
    if enough:
        return Verdict(COMPUTE, *enough[0])
    return Verdict(DATA, best_workers, best)
