"""The largest batch that fits: double until out of memory, then bisect between the last fit and the first miss.

Pure logic (no torch): ``fits(batch)`` is supplied by the workload and returns
False on out-of-memory. The search stops at ``cap`` so it ends on a CPU, where
memory is large and each step slow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class SearchResult:
    largest: int | None                # the largest batch that ran; None when even ``start`` did not
    smallest_failing: int | None       # the smallest batch that ran out of memory; None when none did
    capped: bool                       # the search reached ``cap`` without running out of memory
    tried: list[tuple[int, bool]] = field(default_factory=list)


def search(fits: Callable[[int], bool], start: int = 1, cap: int = 1024, tolerance: float = 1 / 16) -> SearchResult:
    """Find the largest batch in [start, cap] for which ``fits`` holds.

    Bisection stops once the gap is within ``tolerance`` of the fitting batch
    (at least 1), which spares many trials at large sizes for a few percent.
    """
    tried: list[tuple[int, bool]] = []

    def attempt(batch: int) -> bool:
        ok = fits(batch)
        tried.append((batch, ok))
        return ok

    low: int | None = None
    high: int | None = None
    batch = max(1, start)
    while batch <= cap:
        if attempt(batch):
            low = batch
            batch *= 2
        else:
            high = batch
            break
    if high is None and low is not None and low < cap:
        # doubling jumped past the cap: the cap itself is the last candidate
        if attempt(cap):
            low = cap
        else:
            high = cap
    if low is None:
        return SearchResult(largest=None, smallest_failing=high, capped=False, tried=tried)
    if high is None:
        return SearchResult(largest=low, smallest_failing=None, capped=True, tried=tried)
    while high - low > max(1, int(low * tolerance)):
        middle = (low + high) // 2
        if attempt(middle):
            low = middle
        else:
            high = middle
    return SearchResult(largest=low, smallest_failing=high, capped=False, tried=tried)
