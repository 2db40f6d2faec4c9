"""The scan's matrix, torch-free: cases folded into one row per op and dtype, ops.csv, and what others read of it.

- :func:`fold` turns the journal's cases (one recorded call in one dtype each) into
  rows per op x dtype: the worst status over the op's calls, the worst NMSE, device
  and CPU time summed over the calls, and the modules that call it (of the failing
  calls when it fails).
- :func:`write_csv` / :func:`read_csv`: ``ops.csv``, one row per op x dtype.
- :func:`compatibility`: the report's table for a run directory (heading, columns, rows):
  failures first, then the count of ok ops per dtype.
- :func:`failing_module_types`: the module types whose ops failed in a dtype, for
  ``resnet50 --ops-from RUN_DIR`` to keep in fp32.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any, Iterable

from workloads.catalogue import Message, message
from workloads.opscan import statuses as st
from workloads.rundir import EVENTS
from workloads.rundir.read import iter_jsonl

OPS_CSV = "ops.csv"
COLUMNS = ("op", "dtype", "status", "calls", "nmse", "threshold", "nonfinite", "device_ms", "cpu_ms", "vs_fp32",
           "slow", "reference", "family", "phases", "modules", "message")
SLOWER_THAN_FP32 = 1.5   # an fp16/bf16 op this many times slower than its fp32 run on the same device is flagged
_MODULE = re.compile(r"^(?P<source>[^:]+):(?P<path>.*) \((?P<type>[^()]+)\)$")


def fold(cases: Iterable[dict[str, Any]], calls: list[dict[str, Any]], device_is_cpu: bool) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for case in cases:
        groups.setdefault((case["op"], case["dtype"]), []).append(case)
    rows = []
    for (op, dtype), group in groups.items():
        ran = [c for c in group if c.get("status")]
        status = st.worst([c["status"] for c in ran])
        worst = next((c for c in ran if c["status"] == status), ran[0] if ran else group[0])
        failing = [c for c in ran if c["status"] != st.OK]
        callers: list[str] = []
        for c in failing or ran:
            for path in calls[c["call"]]["modules"] if c.get("call") is not None and c["call"] < len(calls) else []:
                if path not in callers:
                    callers.append(path)
        phases = sorted({p for c in group if c.get("call") is not None and c["call"] < len(calls)
                         for p in calls[c["call"]].get("phases", [])})
        nmses = [c["nmse"] for c in ran if isinstance(c.get("nmse"), (int, float))]
        skipped = len(group) - len(ran)
        message = worst.get("message") or ""
        if skipped:
            message += f" ({skipped} more call(s) of it not run after that)"
        if failing and len(ran) > 1:
            message = f"{len(failing)} of {len(ran)} calls: {message}"
        rows.append({
            "op": op, "dtype": dtype, "status": status, "calls": len(group),
            "nmse": max(nmses) if nmses else None, "threshold": worst.get("threshold"),
            "nonfinite": sum(c.get("nonfinite") or 0 for c in ran),
            "device_ms": _sum(c.get("device_ms") for c in ran), "cpu_ms": _sum(c.get("cpu_ms") for c in ran),
            "vs_fp32": None, "slow": "", "reference": worst.get("reference") or "",
            "family": st.family(op), "phases": " ".join(phases), "modules": callers, "message": message.strip(),
        })
    _read_against(rows, device_is_cpu)
    rows.sort(key=lambda r: (st.SEVERITY.index(r["status"]), r["op"], r["dtype"]))
    return rows


def _sum(values: Iterable[Any]) -> float | None:
    numbers = [v for v in values if isinstance(v, (int, float))]
    return sum(numbers) if numbers else None


def _read_against(rows: list[dict[str, Any]], device_is_cpu: bool) -> None:
    """Each row's time against the op's fp32 time on the device and (off the CPU) against the CPU's."""
    fp32 = {r["op"]: r["device_ms"] for r in rows if r["dtype"] == "fp32"}
    for row in rows:
        notes = []
        base = fp32.get(row["op"])
        if row["device_ms"] and base and row["dtype"] != "fp32":
            row["vs_fp32"] = row["device_ms"] / base
            if row["vs_fp32"] > SLOWER_THAN_FP32:
                notes.append(f"{row['vs_fp32']:.1f}x its fp32 time")
        if not device_is_cpu and row["device_ms"] and row["cpu_ms"] and row["device_ms"] > row["cpu_ms"]:
            notes.append("slower than the CPU")
        row["slow"] = "; ".join(notes)


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
        if row.get("dtype") != dtype or row.get("status") in (st.OK, "", None):
            continue
        for path in row.get("modules") or []:
            match = _MODULE.match(path)
            if match and match["source"] == source and not match["path"].startswith("("):
                types.setdefault(match["type"], set()).add(row["op"])
    return types


def failing_module_types(run_dir: str | Path, dtype: str, source: str) -> list[str]:
    """The module types of ``source`` that call an op which failed in ``dtype``, sorted."""
    return sorted(failing(run_dir, dtype, source))


# (heading, column names, rows): the report's table, its words catalogue messages and its cells the scan's own
Table = tuple[Message, list[str | Message], list[list[str | Message]]]


def compatibility(run_dir: str | Path) -> Table:
    """The report's compatibility table from a scan's run directory (its ops.csv)."""
    rows = run_rows(run_dir)
    ok: dict[str, int] = {}
    for row in rows:
        if row.get("status") == st.OK:
            ok[row["dtype"]] = ok.get(row["dtype"], 0) + 1
    return _table([r for r in rows if r.get("status") not in (st.OK, "", None)], ok)


def compatibility_of_result(metrics: dict[str, Any]) -> Table:
    """The same table from a scan's result metrics (its failures and its counts by dtype), for a report that
    has the result but not the run directory."""
    by_dtype = metrics.get("by_dtype") or {}
    ok = {d: c.get(st.OK, 0) for d, c in by_dtype.items() if isinstance(c, dict)}
    return _table(list(metrics.get("failures") or []), ok)


def _table(failures: list[dict[str, Any]], ok: dict[str, int]) -> Table:
    """(heading, column names, rows): the failures, worst first, each with the modules that call the op, then
    one row per dtype with its count of ok ops."""
    columns: list[str | Message] = [
        Message("workload.opscan.column.op"), Message("workload.opscan.column.dtype"),
        Message("workload.opscan.column.status"), Message("workload.opscan.column.nmse"),
        Message("workload.opscan.column.called_from"), Message("workload.opscan.column.message")]
    table: list[list[str | Message]] = []
    for row in sorted(failures, key=lambda r: (st.SEVERITY.index(r["status"]) if r["status"] in st.SEVERITY else 0,
                                                r["op"], r["dtype"])):
        nmse, limit = row.get("nmse"), row.get("threshold")
        metric = f"{float(nmse):.3g} ({float(limit):g})" if nmse not in (None, "") and limit not in (None, "") else ""
        modules = row.get("modules") or []
        callers = ", ".join(m.split(":", 1)[-1] for m in modules[:3]) + (" ..." if len(modules) > 3 else "")
        table.append([row["op"], row["dtype"], _status(row["status"]), metric, callers,
                      (row.get("message") or "")[:160]])
    for dtype, count in ok.items():
        table.append([message("workload.opscan.table.ops", count=count), dtype, _status(st.OK), "", "", ""])
    return Message("workload.opscan.table.heading"), columns, table


def _status(status: str) -> Message | str:
    return st.LABELS.get(status) or status   # a status of another version: as it was written
