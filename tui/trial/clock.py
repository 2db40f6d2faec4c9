"""Time left and cost so far, from the trial's settings and a clock the tests can replace.

Every reader (the workbench's header and banner, the headless export, `cardbench devices`) prints
through :func:`status` and :func:`left_line`, so the time left reads the same everywhere. The cost is
the list price times the hours since the trial's start: what the provider will charge, not a
measurement, and the line says so ("at the list price").
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

from workloads.facts.formatting import format_duration, utc
from workloads.facts.missing import NA
from tui.trial.config import TrialConfig, load_quietly

Clock = Callable[[], float]


@dataclass(frozen=True)
class TrialStatus:
    """The trial at one moment."""

    now: float
    ends: float
    left_s: float                 # negative once the trial has ended
    lead_s: float
    cost: float | None            # at the list price since the start; None without a price or a start
    price_per_hour: float | None
    currency: str

    @property
    def ended(self) -> bool:
        return self.left_s <= 0

    @property
    def in_lead(self) -> bool:
        """Within the lead time of the end (or past it): time to export and back up."""
        return self.left_s <= self.lead_s


def status(config: TrialConfig, now: float) -> TrialStatus | None:
    """None when no trial is set."""
    if config.ends is None:
        return None
    cost = None
    if config.price_per_hour is not None and config.started is not None:
        # no charge is counted past the end: the instance is gone by then
        hours = max(0.0, min(now, config.ends) - config.started) / 3600
        cost = hours * config.price_per_hour
    return TrialStatus(now=now, ends=config.ends, left_s=config.ends - now, lead_s=config.lead_hours * 3600,
                       cost=cost, price_per_hour=config.price_per_hour, currency=config.currency)


def time_left(seconds: float) -> str:
    """'1 d 23 h', '1 h 59 min', '2 min 59 s', '45 s': rounded down, so a countdown never reads more than is left."""
    if not math.isfinite(seconds) or seconds < 0:
        return NA
    if seconds >= 24 * 3600:
        return format_duration(math.floor(seconds / 3600) * 3600)
    if seconds >= 3600:
        return format_duration(math.floor(seconds / 60) * 60)
    whole = math.floor(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def money(amount: float, currency: str) -> str:
    return f"{amount:,.2f} {currency}"


def header_text(state: TrialStatus, width: int | None = None) -> str:
    """The workbench header's words: 'trial: 1 h 59 min left (ends 2026-12-05 14:00:00 UTC), 12.50 USD so far at
    2.50 USD/h list price'; within ``width`` columns the end time goes first, then ' list' (the figures stay)."""
    cost = ""
    if state.cost is not None and state.price_per_hour is not None:
        cost = f", {money(state.cost, state.currency)} so far at {money(state.price_per_hour, state.currency)}/h"
    if state.ended:
        options = [f"trial: ENDED at {utc(state.ends)}{cost} list price", f"trial: ENDED{cost} list price",
                   f"trial: ENDED{cost}"]
    else:
        left = f"trial: {time_left(state.left_s)} left"
        options = [f"{left} (ends {utc(state.ends)}){cost} list price", f"{left}{cost} list price", f"{left}{cost}"]
    if not cost:
        options = [o.removesuffix(" list price") for o in options]
    return next((o for o in options if width is None or len(o) <= width), options[-1])


def banner_text(state: TrialStatus) -> str:
    """The lead-time banner's words, with the two keys that save the work."""
    when = "has ENDED" if state.ended else f"ends in {time_left(state.left_s)}"
    return f"!! the trial {when}: export the report now (e), back up now (b)"


def left_line(config: TrialConfig | None = None, clock: Clock = time.time,
              warn: Callable[[str], None] | None = None) -> str | None:
    """One line for the headless export and `cardbench devices`; None when no trial is set (nothing printed).

    Reads the user's config when none is given, and never fails on it: a broken file is one line to ``warn``
    (`cardbench trial --show` says the same) and no trial line.
    """
    config = config if config is not None else load_quietly(warn=warn)
    state = status(config, clock())
    if state is None:
        return None
    line = header_text(state)
    if state.in_lead and not state.ended:
        line += f"; export the report and back up now (cardbench backup{'' if config.backup_dest else ' DEST'})"
    return line
