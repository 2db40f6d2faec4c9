"""Each measured figure beside the rated one it is read against, torch-free: the rows of the result and report.

A row: ``part``, ``figure`` (what was measured, in words), ``measured`` (a number, or a
word such as PASS), ``unit``, ``rated`` and ``percent`` (measured / rated x 100) where
the device's makers publish the figure, else None (the CPU has none: N/A, never 0),
``source`` (where the rated figure was read, and when) and ``note`` (how it was
measured, or why a part or dtype did not run).
"""

from __future__ import annotations

from typing import Any

from workloads.catalogue import say
from workloads.facts.formatting import format_bytes
from workloads.facts.rated import RatedDevice, peak_figures
from workloads.microbench import link as pcie

R = "workload.microbench.row."   # the rows' words: English on the wire, said again by the report (words.py)
MEMORY_WORDS = ("copy", "read", "fill")   # the kinds the memory part measures


def row(part: str, figure: str, measured: Any, unit: str, *, rated: float | None = None, source: str = "",
        note: str = "", key: str = "") -> dict[str, Any]:
    number = isinstance(measured, (int, float)) and not isinstance(measured, bool)
    percent = measured / rated * 100 if number and rated else None
    return {"part": part, "figure": figure, "key": key, "measured": measured, "unit": unit, "rated": rated,
            "percent": percent, "source": source if rated else "", "note": note}


def _rated(device: RatedDevice | None, key: str) -> tuple[float | None, str]:
    found = device.get(key) if device else None
    if found is None:
        return None, ""
    return found.value, f"{device.device}: {found.source} ({found.date})"


def gemm_rows(results: list[dict[str, Any]], device: RatedDevice | None) -> list[dict[str, Any]]:
    rows = []
    for r in results:
        # a GEMM's dtype is what its math runs in (fp32 at 'highest': plain FP32; tf32 its own)
        rated, source = _rated(device, peak_figures(r["dtype"])[0])
        if r["skipped"]:
            rows.append(row("gemm", say(f"{R}gemm_dtype", dtype=r["dtype"]), None, r["unit"],
                            note=say(f"{R}skipped", reason=r["skipped"]),
                            key=f"gemm_{r['dtype']}"))
            continue
        rows.append(row("gemm", say(f"{R}gemm", dtype=r["dtype"], n=r["best_n"]), r["best"], r["unit"],
                        rated=rated, source=source, key=f"gemm_{r['dtype']}",
                        note=say(f"{R}gemm_note", median=f"{r['median']:.3g}", n=r["best_n"], stop=r["stop"])))
    return rows


def memory_rows(result: dict[str, Any], device: RatedDevice | None) -> list[dict[str, Any]]:
    rated, source = _rated(device, "memory_gbps")
    rows = []
    for kind, figure in result["kinds"].items():
        note = say(f"{R}memory_note", size=format_bytes(result["buffer_bytes"]), median=f"{figure['median_gbps']:.1f}")
        if kind == "read" and result.get("read_vs_probe") is not None:
            note = say(f"{R}memory_probe", note=note, probe=f"{result['probe_read_gbps']:.1f}",
                       percent=f"{result['read_vs_probe'] * 100:.0f}")
        rows.append(row("memory", say(f"{R}memory_{kind}"), figure["best_gbps"], "GB/s", rated=rated, source=source,
                        note=note, key=f"memory_{kind}"))
    return rows


def transfer_rows(points: list[dict[str, Any]], link: dict[str, Any] | None, skipped: str | None) -> list[dict[str, Any]]:
    if skipped:
        return [row("transfer", say(f"{R}host_device"), None, "GB/s", note=say(f"{R}skipped", reason=skipped),
                    key="transfer")]
    from workloads.microbench.transfer import DIRECTIONS, MODES, best

    rated = link["gbps_per_direction"] if link else None
    source = pcie.describe(link) if link else ""
    rows = []
    for mode in reversed(MODES):  # pinned first: the figure the link bounds
        for direction in DIRECTIONS:
            top = best(points, mode, direction)
            if top is None:
                continue
            words = say(f"{R}transfer", direction=say(f"{R}{direction}"), mode=say(f"{R}{mode}"))
            rows.append(row("transfer", words, top["best_gbps"], "GB/s", rated=rated, source=source,
                            note=say(f"{R}transfer_note", size=format_bytes(top["bytes"]),
                                     median=f"{top['median_gbps']:.2f}"),
                            key=f"{direction}_{mode}"))
    rows.append(row("transfer", say("workload.microbench.metric.pcie_link"), pcie.describe(link), "", key="pcie_link",
                    note=say(f"{R}pcie_read" if link else f"{R}pcie_unknown")))
    return rows


def launch_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    calls = result.get("calls")
    keys = ("eager_host_us", "eager_device_us", "roundtrip_us", "graph_host_us", "graph_device_us")
    rows = [row("launch", say(f"{R}launch_{key}", calls=calls, roundtrips=result.get("roundtrips")), result[key], "us",
                key=f"launch_{key}", note=result.get("device_clock", "") if key == "eager_device_us" else "")
            for key in keys if key in result]
    for key in ("notes", "graph_skipped"):
        if result.get(key):
            rows.append(row("launch", say(f"{R}launch_{key}"), None, "us",
                            note=result[key], key=f"launch_{key}"))
    return rows


def burn_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    verdict = result["status"]
    if verdict == "FAIL":
        verdict = say(f"{R}fail", mismatched=result["mismatched_iterations"], iterations=result["iterations"],
                      elements=result["mismatched_elements"])
    note = say(f"{R}burn_note", iterations=result["iterations"], seconds=f"{result['seconds']:.1f}")
    if result.get("tflops"):
        note = say(f"{R}burn_rate", note=note, tflops=f"{result['tflops']:.3g}")
    return [row("burn", say(f"{R}burn", dtype=result["dtype"], n=result["n"]), verdict, "", key="burn", note=note)]


def collective_rows(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per op: the largest size's bus bandwidth (nccl-tests' busbw), its algbw and correctness in the note."""
    rows = []
    for op in dict.fromkeys(p["op"] for p in points):
        top = max((p for p in points if p["op"] == op), key=lambda p: p["bytes"])
        rows.append(row("collectives", say(f"{R}collective", op=op, size=format_bytes(top["bytes"]), ranks=top["ranks"]),
                        top["busbw_gbps"], "GB/s", key=f"collective_{op}",
                        note=say(f"{R}collective_note", algbw=f"{top['algbw_gbps']:.3g}", time=f"{top['time_us']:.0f}",
                                 check=say(f"{R}correct" if top["correct"] else f"{R}wrong"))))
    return rows


RATED_PARTS = ("gemm", "memory", "transfer")   # the parts a data sheet has a figure for


def flat(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The rows as flat result metrics: ``<key>`` measured and, for a part a data sheet rates, ``<key>_rated`` and
    ``<key>_of_rated`` (a fraction; None where the device's figure is not published)."""
    out: dict[str, Any] = {}
    for r in rows:
        if not r["key"] or r["measured"] is None:
            continue
        out[r["key"]] = r["measured"]
        if r["part"] not in RATED_PARTS or not isinstance(r["measured"], (int, float)):
            continue
        out[f"{r['key']}_rated"] = r["rated"]
        out[f"{r['key']}_of_rated"] = r["percent"] / 100 if r["percent"] is not None else None
    return out
