"""The soak's rows as intervals.csv, as the report's table, and its verdict as verdict.txt (torch-free).

A row (`workloads.soak.intervals`) is flattened once (:func:`flat`): the same cells go to the CSV, to
the result event and to the report's table, so the three never disagree. Peaks are the highest over
the devices and name the device; error counters are summed over the devices, and the cell names each
device whose count changed.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from workloads.catalogue import Message, message
from workloads.facts.missing import NA
from workloads.rundir.sample_fields import ECC_CORRECTED, ECC_UNCORRECTED, PCIE_REPLAYS, REMAPPED_ROWS, RETIRED_PAGES
from workloads.soak.verdict import Finding, clock, throttle_words

INTERVALS_CSV = "intervals.csv"
VERDICT_TXT = "verdict.txt"
DELTA_COLUMNS = (ECC_CORRECTED, ECC_UNCORRECTED, REMAPPED_ROWS, RETIRED_PAGES, PCIE_REPLAYS)   # the samples' counters
CSV_COLUMNS = ("interval", "start_utc", "minutes", "throughput", "drift_pct", "ttft_ms", "tpot_ms",
               "latency_drift_pct", "steps", "runs", "errors", "restarts",
               "sm_clock_min_mhz", "sm_clock_max_mhz", "temperature_peak_c", "power_peak_w", "throttle",
               "thermal_throttle_pct", *DELTA_COLUMNS, "xid", "samples")


def _num(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}g}"


def _peak(devices: dict[str, dict[str, Any]], key: str, pick=max) -> tuple[float | None, str]:
    seen = [(d[key], name) for name, d in devices.items() if d.get(key) is not None]
    if not seen:
        return None, ""
    value, name = pick(seen)
    return value, name


def worst_drift(drifts: Iterable[float]) -> float | None:
    """The largest fall of a throughput, else its largest rise (% against the first interval); None for none."""
    return min(drifts, key=lambda d: (d > 0, -abs(d)), default=None)


def row_drift(row: dict[str, Any]) -> float | None:
    """An interval's worst throughput drift (%) over its workloads."""
    return worst_drift(r["drift_pct"] for r in row["rates"].values() if r["drift_pct"] is not None)


def row_latency_change(row: dict[str, Any]) -> float | None:
    """An interval's largest TTFT/TPOT change (%) against the first interval, either way; None without latency."""
    changes = [v for lat in (row.get("latency") or {}).values() for k, v in lat.items()
               if k.endswith("_drift_pct") and v is not None]
    return max(changes, key=abs, default=None)


@dataclass
class Worsts:
    """The result's worst figures over the closed intervals, from each row's numbers (never its cells' text)."""

    drifts: list[float] = field(default_factory=list)
    latency_changes: list[float] = field(default_factory=list)

    def see(self, row: dict[str, Any]) -> None:
        for figures, value in ((self.drifts, row_drift(row)), (self.latency_changes, row_latency_change(row))):
            if value is not None:
                figures.append(value)

    def drift(self) -> float | None:
        return worst_drift(self.drifts)

    def latency_change(self) -> float | None:
        """A serving workload's largest TTFT/TPOT change against the first interval; None before two intervals
        carried latency (the first is the baseline itself: its 0 % is no measurement)."""
        return max(self.latency_changes, key=abs) if len(self.latency_changes) >= 2 else None


def flat(row: dict[str, Any]) -> dict[str, str]:
    """One interval as CSV cells (strings; '' where nothing was read)."""
    devices = row["devices"]
    rates = row["rates"]
    worst = row_drift(row)
    clock_min, _ = _peak(devices, "sm_clock_min_mhz", min)
    clock_max, _ = _peak(devices, "sm_clock_max_mhz")
    temp, temp_at = _peak(devices, "temperature_peak_c")
    power, power_at = _peak(devices, "power_peak_w")
    throttle = "; ".join(f"{name} {words}" for name, d in devices.items() if (words := throttle_words(d["throttle_s"])))
    thermal = max((d["thermal_share"] for d in devices.values()), default=None)
    latency = row.get("latency") or {}
    change = row_latency_change(row)
    out = {
        "ttft_ms": _latency_cell(latency, "ttft"), "tpot_ms": _latency_cell(latency, "tpot"),
        "latency_drift_pct": "" if change is None else f"{change:+.1f}",
        "interval": str(row["interval"]), "start_utc": clock(row["start"]), "minutes": f"{row['duration_s'] / 60:.1f}",
        "throughput": "; ".join(f"{name} {r['median']:.4g} {r['unit']}".strip() for name, r in rates.items()),
        "drift_pct": "" if worst is None else f"{worst:+.1f}", "steps": str(row["steps"]), "runs": str(row["runs"]),
        "errors": str(len(row["errors"])), "restarts": str(row["restarts"]),
        "sm_clock_min_mhz": _num(clock_min), "sm_clock_max_mhz": _num(clock_max),
        "temperature_peak_c": f"{temp:g} ({temp_at})" if temp is not None else "",
        "power_peak_w": f"{power:g} ({power_at})" if power is not None else "",
        "throttle": throttle, "thermal_throttle_pct": "" if thermal is None else f"{100 * thermal:.0f}",
        "xid": "; ".join(f"{x['code']} at {clock(x['t'])[11:19]} ({x['where']})" for x in row["xids"]),
        "samples": str(row["samples"]),
    }
    for key in DELTA_COLUMNS:
        changed = [(name, d["deltas"][key]) for name, d in devices.items() if key in d["deltas"]]
        total = sum(v for _, v in changed)
        named = ", ".join(f"{name} +{v:g}" for name, v in changed if v > 0)
        out[key] = "" if not changed else f"{total:g}" + (f" ({named})" if named else "")
    return out


def _latency_cell(latency: dict[str, dict[str, Any]], figure: str) -> str:
    """'serve concurrency 16 p50 9.4 / p99 12' for each workload (level) whose steps carried the figure."""
    out = []
    for name, lat in latency.items():
        said = " / ".join(f"{p} {lat[key]:.3g}" for p in ("p50", "p99") if (key := f"{figure}_ms_{p}") in lat)
        if said:
            out.append(f"{name} {said}")
    return "; ".join(out)


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    """intervals.csv, rewritten whole (it is a few hundred rows for a day) so a reader never sees half a row."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text.getvalue(), encoding="utf-8")
    tmp.replace(path)


# a serving workload's (serve's steps carry them; the report leaves them out of the others' tables)
_LATENCY_COLUMNS = (Message("workload.soak.column.ttft_ms_median_of_windows"),
                    Message("workload.soak.column.tpot_ms_median_of_windows"),
                    Message("workload.soak.column.latency_drift"))
# the report's column names, in its two languages (the cells are figures and the tools' own words)
TABLE_COLUMNS = (
    Message("workload.soak.column.interval"), Message("workload.soak.column.start_utc"),
    Message("workload.soak.column.min"), Message("workload.soak.column.throughput_median"),
    Message("workload.soak.column.drift"), *_LATENCY_COLUMNS, Message("workload.soak.column.runs_errors_restarts"),
    Message("workload.soak.column.sm_clock_mhz"), Message("workload.soak.column.temp_peak_c"),
    Message("workload.soak.column.power_peak_w"), Message("workload.soak.column.throttle_s"),
    Message("workload.soak.column.ecc_corr_uncorr"), Message("workload.soak.column.remapped_rows"),
    Message("workload.soak.column.pcie_replays"), Message("workload.soak.column.xid"),
)


_LATENCY_AT = tuple(i for i, c in enumerate(TABLE_COLUMNS) if c in _LATENCY_COLUMNS)


def table_row(cells: Mapping[str, str]) -> list[str]:
    clock_range = "-".join(c for c in (cells.get("sm_clock_min_mhz", ""), cells.get("sm_clock_max_mhz", "")) if c)
    ecc = " / ".join(cells.get(k) or NA for k in (ECC_CORRECTED, ECC_UNCORRECTED))
    return [cells.get("interval", ""), cells.get("start_utc", "")[11:19], cells.get("minutes", ""),
            cells.get("throughput", ""), cells.get("drift_pct", ""), cells.get("ttft_ms", ""), cells.get("tpot_ms", ""),
            cells.get("latency_drift_pct", ""),
            f"{cells.get('runs', '')} / {cells.get('errors', '')} / {cells.get('restarts', '')}", clock_range,
            cells.get("temperature_peak_c", ""), cells.get("power_peak_w", ""), cells.get("throttle", ""), ecc,
            cells.get(REMAPPED_ROWS, ""), cells.get(PCIE_REPLAYS, ""), cells.get("xid", "")]


def report_table(metrics: Mapping[str, Any]) -> tuple[Message, list[Message], list[list[str]]]:
    """The report's table from the soak's result metrics: the verdict in the heading, one row per interval."""
    rows = [r for r in metrics.get("intervals") or [] if isinstance(r, dict)]
    verdict = metrics.get("verdict") or NA
    findings = metrics.get("findings_count")
    count = findings if isinstance(findings, int) else NA
    heading = message("workload.soak.table.heading", verdict=verdict, count=count)
    cells = [table_row(r) for r in rows]
    # the latency columns only for a serving workload's soak (the others' steps carry no latency)
    keep = [i for i in range(len(TABLE_COLUMNS)) if i not in _LATENCY_AT or any(c[i] for c in cells)]
    return heading, [TABLE_COLUMNS[i] for i in keep], [[c[i] for i in keep] for c in cells]


def verdict_text(verdict: str, findings: list[Finding], rules: list[str], summary: list[str]) -> str:
    """verdict.txt: the verdict, each finding, then the rules it was judged by."""
    lines = [f"soak verdict: {verdict}", *summary, "", "findings:"]
    lines += [f"  {f.level} {f.rule}: {f.text}" for f in findings] or ["  none"]
    lines += ["", "rules:", *(f"  {rule}" for rule in rules)]
    return "\n".join(lines) + "\n"


def terminal_table(rows: list[dict[str, str]]) -> str:
    """The per-interval table as aligned text for run.log and the terminal (the columns that hold something)."""
    table = [[c.en for c in TABLE_COLUMNS]] + [table_row(r) for r in rows]
    keep = [i for i in range(len(TABLE_COLUMNS)) if any(r[i] not in ("", "- / -") for r in table[1:])]
    widths = [max(len(r[i]) for r in table) for i in keep]
    return "\n".join("  ".join(r[i].ljust(w) for i, w in zip(keep, widths)).rstrip() for r in table)
