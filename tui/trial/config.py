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
import stat
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from tui.files import write_atomically
from workloads.facts.formatting import utc
from workloads.facts.missing import NA
from workloads import xdg
from workloads.safe_text import one_line

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


# written by cardbench, a few hundred bytes: a bigger one is not ours, and reading it whole is not worth the memory
_LARGEST_FILE = 1 << 20


def _read_file(path: Path) -> dict[str, Any]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise TrialConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):   # a FIFO would hang the read, a device never end it
        raise TrialConfigError(f"the config file {path} is not a regular file; remove it")
    if info.st_size > _LARGEST_FILE:
        raise TrialConfigError(f"the config file {path} is {info.st_size / 2**20:.0f} MiB, not a config cardbench "
                               "wrote; fix it or remove it")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TrialConfigError(f"cannot read the config file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise TrialConfigError(f"the config file {path} is not valid JSON (line {exc.lineno}); "
                               "fix it or remove it") from None
    except RecursionError:
        raise TrialConfigError(f"the config file {path} is not valid JSON (nested too deeply); "
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
_LONGEST_DEST = 1024


def check_currency(text: str) -> str:
    if not CURRENCY.fullmatch(text):
        raise TrialConfigError(f"currency {text[:20]!r}{'...' if len(text) > 20 else ''} is not a currency: "
                               "give up to 8 letters (CNY, USD, EUR) or one sign (¥, $)")
    return text


def check_time(what: str, value: float, as_written: str | None = None) -> float:
    """``value`` (Unix seconds) when it lies in 2000-2100; the error quotes ``as_written`` (the user's words)."""
    if not EARLIEST <= value <= LATEST:
        shown = as_written if as_written is not None else utc(value)
        shown = shown if shown != NA else f"{value:g} s since 1970"   # past year 9999
        raise TrialConfigError(f"{what} {shown} is not between 2000 and 2100")
    return value


def check_dest(text: str) -> str:
    """A backup destination is printed by `cardbench trial` and the workbench: plain text, one line."""
    if len(text) > _LONGEST_DEST or one_line(text) != text:
        raise TrialConfigError(f"backup destination {one_line(text, 40)!r} holds control characters or is longer than "
                               f"{_LONGEST_DEST} characters: give a path or remote:bucket/prefix")
    return text


def _shown(value: Any) -> str:
    """A kept value as the file wrote it, short; a list or an object by its kind (it may be nested deep)."""
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return one_line(json.dumps(value), 40)


def _kept_number(what: str, value: Any, least: float, most: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TrialConfigError(f"{what} is {_shown(value)}, not a finite number")
    if not least <= value <= most:
        raise TrialConfigError(f"{what} {value:g} is not between {least:g} and {most:g}")
    return float(value)


def _kept_text(what: str, value: Any, check: Callable[[str], str]) -> str:
    if not isinstance(value, str):
        raise TrialConfigError(f"{what} is {_shown(value)}, not text")
    try:
        return check(value)
    except TrialConfigError as exc:
        raise TrialConfigError(f"{what}: {exc}") from None


def _kept_time(what: str, value: Any) -> float:
    return check_time(what, _kept_number(what, value, -math.inf, math.inf))


# every key of a kept trial and its rule: a value that breaks one is named, never read as unset (a trial whose end
# was Infinity vanished without a word)
_RULES: dict[str, Callable[[str, Any], Any]] = {
    "ends": _kept_time,
    "started": _kept_time,
    "price_per_hour": lambda what, v: _kept_number(what, v, 0.0, MAX_PRICE_PER_HOUR),
    "currency": lambda what, v: _kept_text(what, v, check_currency),
    "lead_hours": lambda what, v: _kept_number(what, v, 0.0, MAX_HOURS),
    "backup_dest": lambda what, v: _kept_text(what, v, check_dest),
}


def load(path: Path | None = None) -> TrialConfig:
    """The trial's settings; an empty TrialConfig when none are kept. A kept value of the wrong type or outside
    its range is an error naming it (the file was edited or damaged); a null or empty one is unset."""
    path = path or config_path()
    raw = _read_file(path).get("trial")
    if raw is None:
        return TrialConfig()
    try:
        if not isinstance(raw, dict):
            raise TrialConfigError(f"trial is {type(raw).__name__}, not an object")
        kept = {name: rule(f"trial.{name}", raw[name]) for name, rule in _RULES.items()
                if raw.get(name) not in (None, "")}
    except TrialConfigError as exc:
        raise TrialConfigError(f"the config file {path}: {exc}; fix it, or run cardbench trial --clear") from None
    return TrialConfig(**kept)


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
