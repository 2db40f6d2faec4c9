"""Each measured figure beside the rated one it is read against, torch-free: the rows of the result and report.

A row: ``part``, ``figure`` (what was measured, in words), ``measured`` (a number, or a
word such as PASS), ``unit``, ``rated`` and ``percent`` (measured / rated x 100) where
the device's makers publish the figure, else None (the CPU has none: N/A, never 0),
``source`` (where the rated figure was read, and when) and ``note`` (how it was
measured, or why a part or dtype did not run).
"""

from __future__ import annotations

from typing import Any

from workloads.facts.formatting import format_bytes
from workloads.facts.rated import RatedDevice, peak_figures
from workloads.microbench import link as pcie

# the GEMM dtype -> its rated figure's key
MEMORY_WORDS = {"copy": "copy (read + write counted)", "read": "read-only reduction (sum)", "fill": "write-only fill"}


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
            rows.append(row("gemm", f"{r['dtype']} GEMM", None, r["unit"], note=f"skipped: {r['skipped']}",
                            key=f"gemm_{r['dtype']}"))
            continue
        rows.append(row("gemm", f"{r['dtype']} GEMM, best of sizes (n={r['best_n']})", r["best"], r["unit"],
                        rated=rated, source=source, key=f"gemm_{r['dtype']}",
                        note=f"median {r['median']:.3g} at n={r['best_n']}; {r['stop']}"))
    return rows


def memory_rows(result: dict[str, Any], device: RatedDevice | None) -> list[dict[str, Any]]:
    rated, source = _rated(device, "memory_gbps")
    size = f"{format_bytes(result['buffer_bytes'])} buffer"
    rows = []
    for kind, figure in result["kinds"].items():
        note = f"{size}; median {figure['median_gbps']:.1f}"
        if kind == "read" and result.get("read_vs_probe") is not None:
            note += (f"; the workload's own probe read {result['probe_read_gbps']:.1f} GB/s on the same size "
                     f"({result['read_vs_probe'] * 100:.0f} % of it)")
        rows.append(row("memory", f"{MEMORY_WORDS[kind]}, best", figure["best_gbps"], "GB/s", rated=rated, source=source,
                        note=note, key=f"memory_{kind}"))
    return rows


def transfer_rows(points: list[dict[str, Any]], link: dict[str, Any] | None, skipped: str | None) -> list[dict[str, Any]]:
    if skipped:
        return [row("transfer", "host <-> device", None, "GB/s", note=f"skipped: {skipped}", key="transfer")]
    from workloads.microbench.transfer import DIRECTIONS, MODES, best

    rated = link["gbps_per_direction"] if link else None
    source = pcie.describe(link) if link else ""
    rows = []
    for mode in reversed(MODES):  # pinned first: the figure the link bounds
        for direction in DIRECTIONS:
            top = best(points, mode, direction)
            if top is None:
                continue
            words = "host -> device" if direction == "h2d" else "device -> host"
            rows.append(row("transfer", f"{words}, {mode}, best", top["best_gbps"], "GB/s", rated=rated, source=source,
                            note=f"best at {format_bytes(top['bytes'])}; median {top['median_gbps']:.2f}",
                            key=f"{direction}_{mode}"))
    rows.append(row("transfer", "PCIe link", pcie.describe(link), "", key="pcie_link",
                    note="read right after the transfers (an idle link trains down)" if link else
                    "neither NVML nor sysfs gave this device's link"))
    return rows


def launch_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    calls = result.get("calls")
    words = {"eager_host_us": f"eager launch, host dispatch (mean of {calls})",
             "eager_device_us": f"eager launch, device time (mean of {calls})",
             "roundtrip_us": f"launch + synchronise, round trip (median of {result.get('roundtrips')})",
             "graph_host_us": "graph replay, host per kernel (mean)",
             "graph_device_us": "graph replay, device per kernel (mean)"}
    rows = [row("launch", text, result[key], "us", key=f"launch_{key}",
                note=result.get("device_clock", "") if key == "eager_device_us" else "")
            for key, text in words.items() if key in result]
    for key in ("notes", "graph_skipped"):
        if result.get(key):
            rows.append(row("launch", "CUDA graph replay" if key == "graph_skipped" else "device time", None, "us",
                            note=result[key], key=f"launch_{key}"))
    return rows


def burn_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    verdict = result["status"]
    if verdict == "FAIL":
        verdict += (f" ({result['mismatched_iterations']} of {result['iterations']} iterations, "
                    f"{result['mismatched_elements']} elements differ)")
    return [row("burn", f"{result['dtype']} GEMM n={result['n']} repeated, compared bit for bit", verdict, "",
                key="burn", note=f"{result['iterations']} iterations in {result['seconds']:.1f} s"
                + (f", {result['tflops']:.3g} TFLOP/s" if result.get("tflops") else ""))]


def collective_rows(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per op: the largest size's bus bandwidth (nccl-tests' busbw), its algbw and correctness in the note."""
    rows = []
    for op in dict.fromkeys(p["op"] for p in points):
        top = max((p for p in points if p["op"] == op), key=lambda p: p["bytes"])
        rows.append(row("collectives", f"{op} busbw, {format_bytes(top['bytes'])}, {top['ranks']} ranks",
                        top["busbw_gbps"], "GB/s", key=f"collective_{op}",
                        note=f"algbw {top['algbw_gbps']:.3g} GB/s, {top['time_us']:.0f} us; "
                             + ("correct" if top["correct"] else "WRONG RESULT")))
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
