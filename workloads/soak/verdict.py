"""The soak's verdict: rules written out, each finding named with its interval and its time.

FAIL when the card or the workload broke; WARN when it held but something a migration should know
about happened (or could not be watched); PASS when no rule found anything. The rules' wording is
what the report prints above the findings, with the limits this soak used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable

from workloads.card_health import FAIL, health_level
from workloads.rundir.sample_fields import ECC_CORRECTED, ECC_UNCORRECTED, PCIE_REPLAYS, REMAPPED_ROWS, RETIRED_PAGES
from workloads.soak.intervals import LATENCY, OVER_TOTAL, QUIET_REASONS, THERMAL_REASONS

DRIFT_LIMIT_PCT = 5.0
# a latency is judged more loosely than a throughput: it is a percentile of one run's requests, not a rate over
# all of them (the test server at fixed delays moves its TPOT p50 a few % between runs on a loaded 2-core machine)
LATENCY_LIMIT_PCT = 20.0
# "ttft_ms_p50" -> "TTFT p50": each of intervals.LATENCY as a finding names it
_LATENCY_WORDS = {key: f"{key.split('_')[0].upper()} {key.rsplit('_', 1)[1]}" for key in LATENCY}
THERMAL_SHARE = 0.10
LEVELS = ("PASS", "WARN", "FAIL")
# counters whose growth is a WARN (the card repaired or retried something), in the words the finding uses
_WARN_COUNTERS = ((ECC_CORRECTED, "corrected (single-bit) ECC errors"), (REMAPPED_ROWS, "remapped rows"),
                  (RETIRED_PAGES, "retired pages"), (PCIE_REPLAYS, "PCIe replays"))


@dataclass(frozen=True)
class Finding:
    level: str       # "FAIL" or "WARN"
    rule: str        # the rule's short name: "xid", "ecc", "drift"...
    text: str        # the finding, naming its device, interval and time

    def to_dict(self) -> dict[str, str]:
        return {"level": self.level, "rule": self.rule, "text": self.text}


def rules(drift_limit_pct: float = DRIFT_LIMIT_PCT, thermal_share: float = THERMAL_SHARE,
          latency_limit_pct: float = LATENCY_LIMIT_PCT) -> list[str]:
    """The rules as the report states them, with this soak's limits."""
    return [
        "FAIL: any Xid line in the kernel log during the soak",
        "FAIL: any uncorrectable (double-bit) ECC error",
        f"FAIL: an interval's median throughput more than {drift_limit_pct:g} % below the first interval's "
        "(of the same workload: the first interval with steps after warm-up; warm-up steps left out)",
        f"FAIL: an interval's TTFT or TPOT p50 more than {latency_limit_pct:g} % above the first interval's (a "
        "serving workload; the median over the interval's windows of each window's p50, per load level)",
        "FAIL: a workload error, or a run that had to be restarted",
        "FAIL: a card its own management tool calls Alarm or Critical (npu-smi's Health)",
        f"WARN: thermal throttling (sw/hw thermal) over {thermal_share:.0%} of an interval on any device",
        "WARN: hw slowdown or power brake seen",
        "WARN: a card its own tool calls not in order (Warning, Not Available...) or reads above its memory",
        f"WARN: an interval's TTFT or TPOT p99 more than {latency_limit_pct:g} % above the first interval's",
        "WARN: corrected ECC errors, remapped rows, retired pages or PCIe replays increased",
        f"WARN: an interval's median throughput more than {drift_limit_pct:g} % above the first interval's "
        "(the first interval was slow: drift is read against it)",
        "WARN: something the soak could not watch (no device readings, no throughput, no kernel log)",
        "PASS: none of the above",
    ]


def clock(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))


def _when(row: dict[str, Any], t: float | None = None) -> str:
    where = f"interval {row['interval']}"
    return f"{where}, {clock(row['start'] if t is None else t)}"


def findings_of(row: dict[str, Any], *, drift_limit_pct: float = DRIFT_LIMIT_PCT,
                thermal_share: float = THERMAL_SHARE, latency_limit_pct: float = LATENCY_LIMIT_PCT) -> list[Finding]:
    """What one closed interval breaks of the rules, in the order it happened (judged as it closes, so the soak
    keeps findings, not raw rows)."""
    found: list[Finding] = []
    for x in row["xids"]:
        found.append(Finding("FAIL", "xid", f"Xid {x['code']} ({x['where']}) at {clock(x['t'])}, interval "
                                            f"{row['interval']}: {x['line'][:200]}"))
    for message in row["errors"]:
        found.append(Finding("FAIL", "error", f"workload error in {_when(row)}: {message[:200]}"))
    if row["restarts"]:
        found.append(Finding("FAIL", "restart", f"{row['restarts']} restart(s) after a failed run in {_when(row)}"))
    for name, rate in row["rates"].items():
        drift = rate["drift_pct"]
        if drift is None or abs(drift) <= drift_limit_pct:
            continue
        level, way = ("FAIL", "below") if drift < 0 else ("WARN", "above")
        found.append(Finding(level, "drift", f"{name} {rate['median']:.4g} {rate['unit']} in {_when(row)}: "
                                             f"{abs(drift):.1f} % {way} the first interval's"))
    for name, lat in (row.get("latency") or {}).items():
        for key in LATENCY:
            drift = lat.get(f"{key}_drift_pct")
            if drift is None or drift <= latency_limit_pct:   # a latency that fell is no fault of the card
                continue
            level = "FAIL" if key.endswith("_p50") else "WARN"
            found.append(Finding(level, "latency", f"{name} {_LATENCY_WORDS[key]} {lat[key]:.4g} ms in {_when(row)}: "
                                                   f"{drift:.1f} % above the first interval's"))
    for device, d in row["devices"].items():
        deltas = d["deltas"]
        if deltas.get(ECC_UNCORRECTED, 0) > 0:
            found.append(Finding("FAIL", "ecc", f"{device}: {deltas[ECC_UNCORRECTED]:g} uncorrectable ECC "
                                                f"error(s) in {_when(row)}"))
        if d["thermal_share"] > thermal_share:
            found.append(Finding("WARN", "thermal", f"{device}: thermal throttling {d['thermal_share']:.0%} of "
                                                    f"{_when(row)}"))
        for word, seconds in (d.get("unwell_s") or {}).items():
            level = "FAIL" if health_level(word) == FAIL else "WARN"
            said = "read more memory in use than the card has" if word == OVER_TOTAL else f"said {word!r}"
            found.append(Finding(level, "health", f"{device}: its tool {said} for {seconds:g} s in {_when(row)}"))
        for reason in ("hw slowdown", "power brake"):
            if d["throttle_s"].get(reason):
                found.append(Finding("WARN", "slowdown", f"{device}: {reason} for {d['throttle_s'][reason]:g} s "
                                                         f"in {_when(row)}"))
        for key, words in _WARN_COUNTERS:
            if deltas.get(key, 0) > 0:
                found.append(Finding("WARN", key, f"{device}: {deltas[key]:g} more {words} in {_when(row)}"))
    return found


def verdict_of(found: list[Finding], *, devices_seen: bool, rates_seen: bool,
               unwatched: Iterable[str] = ()) -> tuple[str, list[Finding]]:
    """(verdict, findings): the intervals' findings and what could not be watched, FAIL first, each level in the
    order it happened."""
    found = list(found)
    if not devices_seen:
        found.append(Finding("WARN", "unwatched", "no device readings: clocks, temperature, ECC and throttling "
                                                  "were not checked"))
    if not rates_seen:
        found.append(Finding("WARN", "unwatched", "no throughput reported: drift was not measured"))
    found += [Finding("WARN", "unwatched", line) for line in unwatched]
    verdict = max((f.level for f in found), key=LEVELS.index, default="PASS")
    found.sort(key=lambda f: -LEVELS.index(f.level))   # stable: in time order within a level
    return verdict, found


def judge(rows: list[dict[str, Any]], *, drift_limit_pct: float = DRIFT_LIMIT_PCT,
          thermal_share: float = THERMAL_SHARE, unwatched: Iterable[str] = (),
          latency_limit_pct: float = LATENCY_LIMIT_PCT) -> tuple[str, list[Finding]]:
    """The verdict of a list of rows (the bench and the tests hold them; the soak judges each as it closes)."""
    found = [f for row in rows for f in findings_of(row, drift_limit_pct=drift_limit_pct, thermal_share=thermal_share,
                                                      latency_limit_pct=latency_limit_pct)]
    return verdict_of(found, devices_seen=not rows or any(r["devices"] for r in rows),
                      rates_seen=not rows or any(r["rates"] for r in rows), unwatched=unwatched)


def throttle_words(throttle_s: dict[str, float]) -> str:
    """'power cap 120 s, sw thermal 30 s': the reasons that say something, longest first."""
    shown = sorted(((s, r) for r, s in throttle_s.items() if r not in QUIET_REASONS and s), reverse=True)
    return ", ".join(f"{r} {s:g} s" for s, r in shown)


__all__ = ["DRIFT_LIMIT_PCT", "LATENCY_LIMIT_PCT", "THERMAL_REASONS", "THERMAL_SHARE", "Finding", "clock", "findings_of", "judge",
           "rules", "throttle_words", "verdict_of"]
