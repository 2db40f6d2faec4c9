"""Where cardbench keeps files outside a runs dir: the XDG base directories, the one rule for all of them.

A relative or empty XDG variable is ignored, as the XDG Base Directory spec says; then the spec's default under
the home directory. Torch-free: the workload children (opscan's state) and the UI (the trial config) share it.
"""

from __future__ import annotations

import os
from pathlib import Path

_DEFAULTS = {"XDG_CONFIG_HOME": ".config", "XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state",
             "XDG_DATA_HOME": ".local/share"}


def base(variable: str) -> Path:
    """$XDG_*_HOME when it is an absolute path, else its default under ~."""
    value = os.environ.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path(os.path.expanduser("~")) / _DEFAULTS[variable]


def config_dir() -> Path:
    return base("XDG_CONFIG_HOME") / "cardbench"


def cache_dir() -> Path:
    return base("XDG_CACHE_HOME") / "cardbench"
