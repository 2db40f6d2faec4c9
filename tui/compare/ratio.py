"""A figure's ratio to the baseline's, with hyperfine's uncertainty.

The ratio is of the figures the reports quote (the headline: the median after warm-up). Its
uncertainty is hyperfine's propagation of each side's relative spread,
``ratio x sqrt((s1/m1)^2 + (s2/m2)^2)``, with m and s the mean and standard deviation of the
per-step rates after the warm-up: how much one step's rate wanders, not a confidence interval.
A side with fewer than two steps (or published figures, which come without steps) has no spread,
and the ratio then has no uncertainty rather than a made-up one. A ratio where either run shared its host or card
with another job (`tui.telemetry.sharing`) is ``noise``: it says what another job took, not which side is faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Ratio:
    value: float
    uncertainty: float | None
    noise: bool = False   # either run shared its host or card: no verdict

    @property
    def verdict(self) -> str:
        """'faster', 'slower' or 'same' (within the uncertainty) for the compared side against the baseline;
        'noise' where either run shared its host or card."""
        if self.noise:
            return "noise"
        margin = self.uncertainty or 0.0
        if self.value - margin > 1.0:
            return "faster"
        if self.value + margin < 1.0:
            return "slower"
        return "same"

    def text(self) -> str:
        """'0.78 ± 0.03' (or '0.78' without a spread)."""
        return f"{self.value:.2f}" + (f" ± {self.uncertainty:.2f}" if self.uncertainty is not None else "")


def relative_spread(mean: float | None, stdev: float | None) -> float | None:
    if mean is None or stdev is None or mean <= 0:
        return None
    return stdev / mean


def ratio(compared: float | None, baseline: float | None, *, spread_compared: float | None = None,
          spread_baseline: float | None = None) -> Ratio | None:
    """``compared / baseline`` with its uncertainty from the two relative spreads; None without both figures."""
    if compared is None or baseline is None or baseline <= 0 or compared < 0:
        return None
    value = compared / baseline
    if spread_compared is None or spread_baseline is None:
        return Ratio(value, None)
    return Ratio(value, value * math.sqrt(spread_compared ** 2 + spread_baseline ** 2))
