"""The scan's matrix, torch-free: cases folded into one row per op and dtype, and the report's table of them.

- :func:`fold` turns the journal's cases (one recorded call in one dtype each) into
  rows per op x dtype: the worst status over the op's calls, the worst NMSE, device
  and CPU time summed over the calls, and the modules that call it (of the failing
  calls when it fails). The rows are written to ``ops.csv`` (:mod:`workloads.rundir.ops_csv`,
  which other workloads read: ``resnet50 --ops-from RUN_DIR``).
- :func:`compatibility`: the report's table for a run directory (heading, columns, rows):
  failures first, then the count of ok ops per dtype; each failure's note said in the report's language
  (:mod:`~workloads.opscan.notes`, whose English is ops.csv's message).
- :func:`terminal_lines`: the same table as English lines for run.log (and a host's terminal): its first
  failures, where the rest are, the ok counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from workloads.catalogue import Message, message
from workloads.opscan import statuses as st
from workloads.opscan.notes import note
from workloads.rundir.ops_csv import run_rows

# how a case's worker was lost (supervisor.py): the figures of its note
LOST = ("worker_how", "worker_said", "timeout_s")
# a failure's figures the result keeps (cli.result_metrics), its note's among them
FAILURE_KEYS = ("op", "dtype", "status", "nmse", "threshold", "nonfinite", "message", "modules", "slow", "case_message",
                "failing_calls", "ran_calls", "skipped_calls", *LOST)
TERMINAL_ROWS = 20       # failures the terminal lists before saying where the rest are
TERMINAL_CELL = 100      # a cell's characters there (a note can be a long error)
SLOWER_THAN_FP32 = 1.5   # an fp16/bf16 op this many times slower than its fp32 run on the same device is flagged


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
        row = {
            "op": op, "dtype": dtype, "status": status, "calls": len(group),
            "nmse": max(nmses) if nmses else None, "threshold": worst.get("threshold"),
            "nonfinite": sum(c.get("nonfinite") or 0 for c in ran),
            "device_ms": _sum(c.get("device_ms") for c in ran), "cpu_ms": _sum(c.get("cpu_ms") for c in ran),
            "vs_fp32": None, "slow": "", "reference": worst.get("reference") or "",
            "family": st.family(op), "phases": " ".join(phases), "modules": callers,
            # the note's figures (notes.py): the worst call's own message, its calls, how its worker was lost
            "case_message": (worst.get("message") or "").strip(), "failing_calls": len(failing),
            "ran_calls": len(ran), "skipped_calls": len(group) - len(ran),
            **{k: worst[k] for k in LOST if worst.get(k) is not None},
        }
        row["message"] = str(note(row))   # ops.csv's English
        rows.append(row)
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
        said = note(row)
        table.append([row["op"], row["dtype"], _status(row["status"]), metric, callers,
                      said if callable(said) else said[:160]])
    for dtype, count in ok.items():
        table.append([message("workload.opscan.table.ops", count=count), dtype, _status(st.OK), "", "", ""])
    return Message("workload.opscan.table.heading"), columns, table


def terminal_lines(metrics: dict[str, Any], most: int = TERMINAL_ROWS) -> list[str]:
    """The report's table as aligned English text for run.log and the terminal: the first ``most`` failures, where
    the rest are, then the ok ops per dtype."""
    _, columns, table = compatibility_of_result(metrics)
    failing = len([f for f in metrics.get("failures") or [] if isinstance(f, dict)])
    shown = table[:min(failing, most)] + table[failing:]
    cells = [[str(c) for c in columns]] + [[str(c)[:TERMINAL_CELL] for c in row] for row in shown]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["opscan: " + str(Message("workload.opscan.table.heading"))]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    if failing > most:
        where = metrics.get("ops_csv") or "ops.csv"
        lines.insert(2 + most, f"  ... {failing - most} more failing row(s) in {where}")
    return lines


def _status(status: str) -> Message | str:
    return st.LABELS.get(status) or status   # a status of another version: as it was written
