"""A scan's ``ops.csv``, torch-free: one row per op x dtype, written by opscan and read by whoever acts on a scan
(``resnet50 --ops-from RUN_DIR`` keeps in fp32 the module types whose ops failed; a suite's hand-over says so).

A row's ``modules`` are the callers, each ``SOURCE:PATH (TYPE)`` (``resnet50:layer1.0.bn1 (BatchNorm2d)``), joined
by ``; `` in the file. A run directory without ops.csv (a scan that ended early) is read from its result event's
failures instead.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from workloads.rundir import EVENTS
from workloads.rundir.read import iter_jsonl

OPS_CSV = "ops.csv"
COLUMNS = ("op", "dtype", "status", "calls", "nmse", "threshold", "nonfinite", "device_ms", "cpu_ms", "vs_fp32",
           "slow", "reference", "family", "phases", "modules", "message")
OK = "ok"   # the status of an op that ran correctly (opscan's statuses take it from here); any other failed
_MODULE = re.compile(r"^(?P<source>[^:]+):(?P<path>.*) \((?P<type>[^()]+)\)$")


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in COLUMNS})


def _cell(value: Any) -> Any:
    if isinstance(value, list):
        return "; ".join(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else value


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def run_rows(run_dir: str | Path) -> list[dict[str, Any]]:
    """The op x dtype rows of a scan's run directory: its ops.csv, else the failures its result event lists."""
    run_dir = Path(run_dir)
    if (run_dir / OPS_CSV).is_file():
        rows = read_csv(run_dir / OPS_CSV)
        for row in rows:
            row["modules"] = [m for m in row["modules"].split("; ") if m]
        return rows
    events = run_dir / EVENTS
    if not events.is_file():
        raise FileNotFoundError(f"{run_dir} has neither {OPS_CSV} nor {EVENTS}")
    rows: list[dict[str, Any]] = []
    for event in iter_jsonl(events):   # every segment of a rotated run, oldest first
        if isinstance(event, dict) and event.get("event") == "result":
            rows = list(event.get("metrics", {}).get("failures") or [])
    return rows


def failing(run_dir: str | Path, dtype: str, source: str) -> dict[str, set[str]]:
    """The module types of ``source`` (resnet50) that call an op which failed in ``dtype``, each with those ops."""
    types: dict[str, set[str]] = {}
    for row in run_rows(run_dir):
        if row.get("dtype") != dtype or row.get("status") in (OK, "", None):
            continue
        for path in row.get("modules") or []:
            match = _MODULE.match(path)
            if match and match["source"] == source and not match["path"].startswith("("):
                types.setdefault(match["type"], set()).add(row["op"])
    return types


def failing_module_types(run_dir: str | Path, dtype: str, source: str) -> list[str]:
    """The module types of ``source`` that call an op which failed in ``dtype``, sorted."""
    return sorted(failing(run_dir, dtype, source))
