"""`cardbench trial`: tell cardbench when the trial ends and what it costs; kept in the user's config file.

    cardbench trial --ends 2026-12-05T14:00 --price-per-hour 6.5 --currency CNY
    cardbench trial --hours 72 [--lead-hours 3] [--backup-dest remote:bucket/prefix]
    cardbench trial [--show]          what is kept, and the time left
    cardbench trial --clear           forget the trial

Light to import (argparse and the config only): `cardbench` builds every command's parser at start.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time

from workloads.facts.formatting import utc
from tui.trial import config as trial_config
from tui.trial.clock import Clock, header_text, status, time_left
from workloads import exit_codes

NAME = "trial"


def _number(what: str, allow_zero: bool, most: float):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a number, not {text[:40]!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{what} must be a finite number, not {text[:40]}")
        if value < 0 or (value == 0 and not allow_zero):
            raise argparse.ArgumentTypeError(f"{what} must be {'0 or more' if allow_zero else 'more than 0'}, "
                                             f"not {text[:40]}")
        if value > most:
            raise argparse.ArgumentTypeError(f"{what} must be at most {most:g}, not {text[:40]}")
        return value
    return parse


def _checked(check):
    def parse(text: str):
        try:
            return check(text)
        except trial_config.TrialConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


_time = _checked(lambda text: trial_config.check_time("time", trial_config.parse_time(text), text))


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(NAME, help="when the trial ends, its price, and where to back up (kept in your config)",
                            description="Keep the trial's end and price in your config file "
                                        f"({trial_config.config_path()}): the workbench shows the time left and the "
                                        "cost so far, and from the lead time a banner asks to export and back up.")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--ends", "--trial-ends", dest="ends", type=_time, metavar="TIME",
                      help="when the instance goes away: 2026-12-05T14:00 (local time), 2026-12-05T06:00Z, +08:00...")
    when.add_argument("--hours", "--trial-hours", dest="hours", type=_number("--hours", False, trial_config.MAX_HOURS), metavar="H",
                      help="the trial ends H hours from now")
    when.add_argument("--show", action="store_true", help="print what is kept and the time left (the default)")
    when.add_argument("--clear", action="store_true", help="forget the trial's settings")
    parser.add_argument("--started", type=_time, metavar="TIME",
                        help="when the trial began, for the cost so far (default: now, when --ends or --hours is set)")
    parser.add_argument("--price-per-hour", type=_number("--price-per-hour", True, trial_config.MAX_PRICE_PER_HOUR),
                        metavar="PRICE",
                        help="the instance's list price per hour, for the cost so far")
    parser.add_argument("--currency", metavar="C", type=_checked(trial_config.check_currency),
                        help="currency of --price-per-hour (default USD)")
    parser.add_argument("--lead-hours", type=_number("--lead-hours", True, trial_config.MAX_HOURS), metavar="H",
                        help=f"how long before the end the banner and bell come (default {trial_config.DEFAULT_LEAD_HOURS:g})")
    parser.add_argument("--backup-dest", metavar="DEST", type=_checked(trial_config.check_dest),
                        help="where `b` in the workbench backs up to: a path or an rclone remote:bucket/prefix")
    return parser


def _changed(kept: trial_config.TrialConfig, args: argparse.Namespace, now: float) -> trial_config.TrialConfig:
    updates: dict[str, object] = {}
    if args.ends is not None or args.hours is not None:
        ends = args.ends if args.ends is not None else now + args.hours * 3600
        if ends <= now:
            raise trial_config.TrialConfigError(f"the trial's end {utc(ends)} is in the past (now {utc(now)})")
        if ends - now > trial_config.MAX_HOURS * 3600:   # the same bound as --hours: no trial lasts a year
            raise trial_config.TrialConfigError(f"the trial's end {utc(ends)} is more than a year away "
                                                f"({trial_config.MAX_HOURS:g} h); give the end the provider states")
        updates["ends"] = ends
        # a new end for the trial that is running moves its end, not its start: the cost so far goes on
        running = kept.ends is not None and kept.ends > now and kept.started is not None
        if not running:
            updates["started"] = now
    if args.started is not None:
        updates["started"] = args.started
    for name in ("price_per_hour", "currency", "lead_hours", "backup_dest"):
        if getattr(args, name) is not None:
            updates[name] = getattr(args, name)
    changed = dataclasses.replace(kept, **updates)
    if changed.started is not None and changed.ends is not None and changed.started > changed.ends:
        raise trial_config.TrialConfigError(f"the trial's start {utc(changed.started)} is after its end "
                                            f"{utc(changed.ends)} (--started)")
    return changed


def describe(config: trial_config.TrialConfig, now: float) -> list[str]:
    """What is kept, in lines for the terminal."""
    state = status(config, now)
    lines = []
    if state is None:
        lines.append("no trial set (cardbench trial --ends TIME or --hours H)")
    else:
        lines.append(header_text(state))
        if config.price_per_hour is None:
            lines.append("no price kept: add --price-per-hour P --currency C for the cost so far")
        lead_at = state.ends - state.lead_s
        lines.append(f"the banner and bell come at {utc(lead_at)} ({config.lead_hours:g} h before the end"
                     + (f", in {time_left(lead_at - now)})" if lead_at > now else ", now)"))
    lines.append(f"backup destination (key b): {config.backup_dest or 'none (--backup-dest DEST)'}")
    return lines


def run(args: argparse.Namespace, clock: Clock = time.time) -> int:
    path = trial_config.config_path()
    now = clock()
    try:
        if args.clear:
            trial_config.save(None, path)
            print(f"trial settings removed from {path}")
            return exit_codes.OK
        kept = trial_config.load(path)
        asked = any(getattr(args, n) is not None for n in
                    ("ends", "hours", "started", "price_per_hour", "currency", "lead_hours", "backup_dest"))
        if asked:
            if args.started is not None and args.ends is None and args.hours is None and kept.ends is None:
                raise trial_config.TrialConfigError("--started needs a trial: give --ends TIME or --hours H too")
            kept = _changed(kept, args, now)
            trial_config.save(kept, path)
    except trial_config.TrialConfigError as exc:
        print(f"cardbench trial: {exc}", file=sys.stderr)
        return exit_codes.BAD_INPUT
    for line in describe(kept, now):
        print(line)
    print(f"{'kept in' if asked else 'from'} {path}")
    return exit_codes.OK
