"""The words of the report's microbenchmark table in the reader's language (torch-free): each row's part, what it
measured and how, said from the catalogue.

The child writes each row's ``figure`` and ``note`` in English (events.jsonl, run.log keep them); the report says
them again from the row's key and the numbers of its part's own measurements (``parts`` in the result), so a run
written before this module said the same. A sentence of the child's own that holds a reason (why a GEMM sweep
stopped, why a part was skipped) is matched back to its catalogue template (`resaid`); text from outside (an error)
stays as it was written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping

from workloads.catalogue import CATALOGUE, Message, Said, message
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA

# the child's sentences that a row's note or skip reason may be: matched back to be said in the reader's language
REASONS = ("workload.microbench.stop.no_fit", "workload.microbench.stop.failed", "workload.microbench.stop.flat",
           "workload.microbench.stop.call_cap", "workload.microbench.stop.largest",
           "workload.microbench.skip.tf32_not_cuda", "workload.microbench.skip.tf32_capability",
           "workload.microbench.skip.cpu_transfer", "workload.microbench.skip.no_collectives",
           "workload.microbench.launch.cpu_note", "workload.microbench.launch.graph_not_cuda",
           "workload.microbench.launch.clock_events", "workload.microbench.launch.clock_host")
LAUNCH = ("eager_host_us", "eager_device_us", "roundtrip_us", "graph_host_us", "graph_device_us", "notes",
          "graph_skipped")


@lru_cache(maxsize=None)
def _template(key: str) -> re.Pattern[str]:
    """The English of ``key`` as a pattern: each placeholder a named group (a repeated one must match alike)."""
    seen: set[str] = set()

    def group(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in seen:
            return f"(?P={name})"
        seen.add(name)
        return f"(?P<{name}>.+?)"

    return re.compile(re.sub(r"\\\{(\w+)\\\}", group, re.escape(CATALOGUE[key][0])))


def resaid(text: Any, keys: tuple[str, ...] = REASONS) -> Any:
    """``text`` as the catalogue message whose English it is (its placeholders read back from it), or ``text`` as
    written: outside words (an error's), or a sentence older or newer than this catalogue."""
    if not isinstance(text, str) or not text:
        return text
    for key in keys:
        found = _template(key).fullmatch(text)
        if found:
            return message(key, **found.groupdict())
    return text


def _n(number: Any, spec: str) -> str:
    return format(number, spec) if isinstance(number, (int, float)) and not isinstance(number, bool) else NA


def gemm(row: Mapping[str, Any], raw: list[Mapping[str, Any]]) -> tuple[Any, Any] | None:
    dtype = row["key"].removeprefix("gemm_")
    result = next((r for r in raw if isinstance(r, Mapping) and r.get("dtype") == dtype), None)
    if result is None:
        return None
    if result.get("skipped"):
        return message("workload.microbench.row.gemm_dtype", dtype=dtype), \
            message("workload.microbench.row.skipped", reason=resaid(result["skipped"]))
    n = result.get("best_n")
    return (message("workload.microbench.row.gemm", dtype=dtype, n=n),
            message("workload.microbench.row.gemm_note", median=_n(result.get("median"), ".3g"), n=n,
                    stop=resaid(result.get("stop", ""))))


def memory(row: Mapping[str, Any], raw: Mapping[str, Any]) -> tuple[Any, Any] | None:
    kind = row["key"].removeprefix("memory_")
    figure = (raw.get("kinds") or {}).get(kind)
    if kind not in ("copy", "read", "fill") or not isinstance(figure, Mapping):
        return None
    note: Said = message("workload.microbench.row.memory_note", size=format_bytes(raw.get("buffer_bytes")),
                         median=_n(figure.get("median_gbps"), ".1f"))
    if kind == "read" and raw.get("read_vs_probe") is not None:
        note = message("workload.microbench.row.memory_probe", note=note, probe=_n(raw.get("probe_read_gbps"), ".1f"),
                       percent=_n(raw["read_vs_probe"] * 100, ".0f"))
    return message(f"workload.microbench.row.{row['key']}"), note


def launch(row: Mapping[str, Any], raw: Mapping[str, Any]) -> tuple[Any, Any] | None:
    key = row["key"].removeprefix("launch_")
    if key not in LAUNCH:
        return None
    figure = message(f"workload.microbench.row.launch_{key}", calls=raw.get("calls"), roundtrips=raw.get("roundtrips"))
    if key in ("notes", "graph_skipped"):
        return figure, resaid(raw.get(key, row.get("note")))
    return figure, resaid(raw.get("device_clock", "")) if key == "eager_device_us" else ""


def burn(raw: Mapping[str, Any]) -> tuple[Any, Any, Any] | None:
    if not raw.get("status"):
        return None
    note: Said = message("workload.microbench.row.burn_note", iterations=raw.get("iterations"),
                         seconds=_n(raw.get("seconds"), ".1f"))
    if raw.get("tflops"):
        note = message("workload.microbench.row.burn_rate", note=note, tflops=_n(raw["tflops"], ".3g"))
    verdict = message("workload.microbench.row.pass") if raw["status"] == "PASS" else message(
        "workload.microbench.row.fail", mismatched=raw.get("mismatched_iterations"),
        iterations=raw.get("iterations"), elements=raw.get("mismatched_elements"))
    return message("workload.microbench.row.burn", dtype=raw.get("dtype"), n=raw.get("n")), verdict, note


def transfer(row: Mapping[str, Any], raw: Mapping[str, Any]) -> tuple[Any, Any, Any] | None:
    """(figure, measured, note): measured None where the row's own number stands."""
    key = row["key"]
    if key == "transfer":
        return (message("workload.microbench.row.host_device"), None,
                message("workload.microbench.row.skipped", reason=resaid(raw.get("skipped", ""))))
    if key == "pcie_link":
        link = raw.get("link")
        return (message("workload.microbench.metric.pcie_link"), pcie(link) if link else None,
                message("workload.microbench.row.pcie_read" if link else "workload.microbench.row.pcie_unknown"))
    direction, _, mode = key.partition("_")
    points = [p for p in raw.get("points") or [] if p.get("direction") == direction and p.get("mode") == mode]
    if direction not in ("h2d", "d2h") or mode not in ("pinned", "pageable") or not points:
        return None
    top = max(points, key=lambda p: p.get("best_gbps") or 0)
    return (message("workload.microbench.row.transfer", direction=message(f"workload.microbench.row.{direction}"),
                    mode=message(f"workload.microbench.row.{mode}")), None,
            message("workload.microbench.row.transfer_note", size=format_bytes(top.get("bytes")),
                    median=_n(top.get("median_gbps"), ".2f")))


def pcie(link: Mapping[str, Any]) -> Message:
    """The link as `workloads.microbench.link.describe` says it, in the reader's language."""
    said = message("workload.microbench.row.pcie", generation=link.get("generation"), width=link.get("width"),
                   source=link.get("source"), gbps=_n(link.get("gbps_per_direction"), ".1f"))
    if link.get("max_generation") and (link["max_generation"], link.get("max_width")) != (link.get("generation"),
                                                                                          link.get("width")):
        said = message("workload.microbench.row.pcie_max", link=said, generation=link["max_generation"],
                       width=link.get("max_width"))
    return said


def collective(row: Mapping[str, Any], raw: Mapping[str, Any]) -> tuple[Any, Any] | None:
    if row["key"] == "collectives":
        return row.get("figure"), message("workload.microbench.row.skipped", reason=resaid(raw.get("skipped", "")))
    op = row["key"].removeprefix("collective_")
    points = [p for p in raw.get("points") or [] if p.get("op") == op]
    if not points:
        return None
    top = max(points, key=lambda p: p.get("bytes") or 0)
    return (message("workload.microbench.row.collective", op=op, size=format_bytes(top.get("bytes")),
                    ranks=top.get("ranks")),
            message("workload.microbench.row.collective_note", algbw=_n(top.get("algbw_gbps"), ".3g"),
                    time=_n(top.get("time_us"), ".0f"),
                    check=message("workload.microbench.row.correct" if top.get("correct") else
                                  "workload.microbench.row.wrong")))


def failed(raw: Mapping[str, Any]) -> Message:
    if raw.get("hint"):
        return message("workload.microbench.row.failed_hint", error=raw.get("error"), hint=raw["hint"])
    return message("workload.microbench.row.failed", error=raw.get("error"))
