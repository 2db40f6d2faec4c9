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
from typing import Any

from tui.files import write_atomically

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
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "cardbench" / "config.json"


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


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def load(path: Path | None = None) -> TrialConfig:
    """The trial's settings; an empty TrialConfig when none are kept. A value of the wrong type is ignored."""
    raw = _read_file(path or config_path()).get("trial")
    if not isinstance(raw, dict):
        return TrialConfig()
    lead = _finite(raw.get("lead_hours"))
    currency, dest = raw.get("currency"), raw.get("backup_dest")
    return TrialConfig(ends=_finite(raw.get("ends")), started=_finite(raw.get("started")),
                       price_per_hour=_finite(raw.get("price_per_hour")),
                       currency=currency if isinstance(currency, str) and currency else "USD",
                       lead_hours=lead if lead is not None and lead >= 0 else DEFAULT_LEAD_HOURS,
                       backup_dest=dest if isinstance(dest, str) and dest else None)


def load_quietly(path: Path | None = None) -> TrialConfig:
    """For a reader that must not fail on the user's config (the workbench, `devices`): unusable reads as unset."""
    try:
        return load(path)
    except TrialConfigError:
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


def report_price(price: float | None, currency: str) -> tuple[float | None, str]:
    """The price the report's costs use: the one given on the command line, else the trial's kept list price
    (with its currency), so `cardbench --export-report` needs no --price-per-hour after `cardbench trial`."""
    if price is not None:
        return price, currency
    kept = load_quietly()
    return (kept.price_per_hour, kept.currency) if kept.price_per_hour is not None else (None, currency)
