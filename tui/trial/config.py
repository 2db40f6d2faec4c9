"""The trial's settings, kept in the user's config file so the workbench and the headless mode both know them.

The file is ``$CARDBENCH_CONFIG`` when set (the tests point it at a temporary folder), else
``$XDG_CONFIG_HOME/cardbench/config.json`` (``~/.config/cardbench/config.json``). It is JSON: Python
reads TOML but cannot write it, and this file is written by ``cardbench trial``. Only the ``"trial"``
key is ours here; any other key in the file is kept as it is. Nothing secret is ever written: a backup
destination is an rclone remote's *name*, whose credentials stay in rclone's own config.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from tui.files import write_atomically
from workloads import xdg

ENV_VAR = "CARDBENCH_CONFIG"
DEFAULT_LEAD_HOURS = 2.0


class TrialConfigError(Exception):
    """A bad value or an unusable config file; the message is one line for the user."""


@dataclass(frozen=True)
class TrialConfig:
    """What the user told cardbench about the trial. Times are Unix seconds."""

    ends: float | None = None            # when the instance goes away
    started: float | None = None         # from when the cost is counted (when the trial was set, unless given)
    price_per_hour: float | None = None  # the list price
    currency: str = "USD"
    lead_hours: float = DEFAULT_LEAD_HOURS   # how long before the end the banner asks to export and back up
    backup_dest: str | None = None       # where `b` in the workbench backs up to (a path or remote:bucket/prefix)


def config_path() -> Path:
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    return xdg.config_dir() / "config.json"


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise TrialConfigError(f"cannot read the config file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise TrialConfigError(f"the config file {path} is not valid JSON (line {exc.lineno}); "
                               "fix it or remove it") from None
    if not isinstance(data, dict):
        raise TrialConfigError(f"the config file {path} holds {type(data).__name__}, not an object; fix it or remove it")
    return data


# The ranges a kept value must lie in; outside them a clock, a cost or a banner computed from it means nothing
# (an end of 1e308 s was written as Infinity, and the trial vanished). A trial is days; a year is generous.
MAX_HOURS = 8784.0                 # a leap year
MAX_PRICE_PER_HOUR = 1e6           # no instance costs a million an hour in any currency people rent in
EARLIEST, LATEST = 946684800.0, 4102444800.0   # 2000-01-01 and 2100-01-01 UTC: any trial's start and end
CURRENCY = re.compile(r"[^\W\d_]{1,8}|[$€£¥₹₩₽]")  # "CNY", "USD", "元", "¥": letters, or one sign


def check_currency(text: str) -> str:
    if not CURRENCY.fullmatch(text):
        raise TrialConfigError(f"currency {text[:20]!r}{'...' if len(text) > 20 else ''} is not a currency: "
                               "give up to 8 letters (CNY, USD, EUR) or one sign (¥, $)")
    return text


def check_time(what: str, value: float) -> float:
    if not EARLIEST <= value <= LATEST:
        raise TrialConfigError(f"{what} must lie between 2000 and 2100, not {value:g} s since 1970")
    return value


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def load(path: Path | None = None) -> TrialConfig:
    """The trial's settings; an empty TrialConfig when none are kept. A value outside its range is an error
    naming it (the file was edited or damaged); a value of the wrong type is ignored."""
    path = path or config_path()
    raw = _read_file(path).get("trial")
    if not isinstance(raw, dict):
        return TrialConfig()
    lead = _finite(raw.get("lead_hours"))
    currency, dest = raw.get("currency"), raw.get("backup_dest")
    config = TrialConfig(ends=_finite(raw.get("ends")), started=_finite(raw.get("started")),
                         price_per_hour=_finite(raw.get("price_per_hour")),
                         currency=currency if isinstance(currency, str) and currency else "USD",
                         lead_hours=lead if lead is not None and lead >= 0 else DEFAULT_LEAD_HOURS,
                         backup_dest=dest if isinstance(dest, str) and dest else None)
    try:
        for name in ("ends", "started"):
            if getattr(config, name) is not None:
                check_time(f"trial.{name}", getattr(config, name))
        if config.price_per_hour is not None and not 0 <= config.price_per_hour <= MAX_PRICE_PER_HOUR:
            raise TrialConfigError(f"trial.price_per_hour {config.price_per_hour:g} is not between 0 and "
                                   f"{MAX_PRICE_PER_HOUR:g}")
        if config.lead_hours > MAX_HOURS:
            raise TrialConfigError(f"trial.lead_hours {config.lead_hours:g} is more than a year")
        check_currency(config.currency)
    except TrialConfigError as exc:
        raise TrialConfigError(f"the config file {path} holds {exc}; fix it, or run cardbench trial --clear") from None
    return config


def load_quietly(path: Path | None = None, warn: Callable[[str], None] | None = None) -> TrialConfig:
    """For a reader that must not fail on the user's config (the workbench, `devices`): unusable reads as unset,
    and ``warn`` (when given) hears why in one line."""
    try:
        return load(path)
    except TrialConfigError as exc:
        if warn is not None:
            warn(f"trial settings not read: {exc}")
        return TrialConfig()


def save(config: TrialConfig | None, path: Path | None = None) -> Path:
    """Write the trial's settings (None: remove them), keeping every other key of the file; atomic."""
    path = path or config_path()
    data = _read_file(path)
    if config is None:
        data.pop("trial", None)
    else:
        data["trial"] = {f.name: getattr(config, f.name) for f in fields(config) if getattr(config, f.name) is not None}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a temporary file beside it, renamed: an interrupted write leaves the old file whole
        write_atomically(path, json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise TrialConfigError(f"cannot write the config file {path}: {exc.strerror or exc}") from None
    return path


_ZONE = re.compile(r"\s*(UTC|Z)$", re.IGNORECASE)


def parse_time(text: str) -> float:
    """An end time as the user writes it: ISO 8601 ('2026-12-05T14:00', '2026-12-05 14:00:00+08:00',
    '2026-12-05T06:00Z', '2026-12-05 06:00 UTC'); without a zone it is this machine's local time."""
    cleaned = _ZONE.sub("+00:00", text.strip())
    try:
        moment = datetime.fromisoformat(cleaned)
    except ValueError:
        raise TrialConfigError(f"cannot read {text!r} as a time: write it as 2026-12-05T14:00 "
                               "(local time), 2026-12-05T06:00Z or 2026-12-05T14:00+08:00") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time, as the clock on the wall of this machine reads
    return moment.astimezone(timezone.utc).timestamp()


PRICE_GIVEN, PRICE_KEPT = "option", "trial"   # where a report's price came from, for the sentence that quotes it


def report_price(price: float | None, currency: str) -> tuple[float | None, str, str | None]:
    """(price, currency, where from) for the report's costs: the one given on the command line (PRICE_GIVEN), else
    the trial's kept list price with its currency (PRICE_KEPT), so `cardbench --export-report` and the `e` key
    need no --price-per-hour after `cardbench trial`; (None, currency, None) when there is none."""
    if price is not None:
        return price, currency, PRICE_GIVEN
    kept = load_quietly()
    if kept.price_per_hour is not None:
        return kept.price_per_hour, kept.currency, PRICE_KEPT
    return None, currency, None
