"""--find-max's answer in one sentence ("7.5 requests/s holds the SLO, 7.8 requests/s does not ..."), or why there is
none, said from the result's figures; and the report's table of a search headed by it (the record's REPORT_TABLE)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message
from workloads.facts.missing import NA, is_finite
from workloads.serve import table
from workloads.serve.search import BUDGET, CEILING, NONE_MEETS
from workloads.serve.table import figure


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """The sweep's table (workloads.serve.table), its heading led by the search's answer when there was one."""
    heading, columns, rows = table.report_table(metrics)
    if metrics.get("search_stop"):
        said = answer_message(metrics, table.answer_row(metrics.get("levels"), metrics, missed=True))
        heading = message("workload.serve.table.found", answer=said, heading=heading)
    return heading, columns, rows


def _level_words(kind: str, value: float | None) -> str:
    if value is None:
        return ""
    return f"{figure(value)} requests/s" if kind == "rate" else f"concurrency {value:g}"


def answer_message(found: Mapping[str, Any], lowest_row: Mapping[str, Any] | None = None) -> Message:
    """The search's answer in one sentence: the bracket, or why there is none."""
    kind, stop = found.get("find_max"), found.get("search_stop")
    keys = table.find_max_keys(kind)
    holds, missed, ceiling = found.get(keys.held), found.get(keys.missed), found.get(keys.ceiling)
    said = {"holds": _level_words(kind, holds), "missed": _level_words(kind, missed),
            "ceiling": _level_words(kind, ceiling), "levels": found.get("search_levels"),
            "budget": f"{found.get('search_budget_s', 0):g} s"}
    if stop == NONE_MEETS:
        row = lowest_row or {}
        return message("workload.serve.find_max.none", lowest=said["missed"],
                       attained=_share(row.get("slo_attained")), ttft=_ms(row.get("ttft_sched_ms_p99")),
                       tpot=_ms(row.get("tpot_ms_p99")))
    if stop == CEILING:
        return message("workload.serve.find_max.ceiling", **said)
    if holds is None:
        return message("workload.serve.find_max.budget_none", **said)
    if missed is None:
        return message("workload.serve.find_max.holds_only", **said)
    key = "budget" if stop == BUDGET else stop
    return message(f"workload.serve.find_max.{key}", **said)


def _share(value: Any) -> str:
    return f"{value:.1%}" if is_finite(value) else NA


def _ms(value: Any) -> str:
    return f"{value:.3g}" if is_finite(value) else NA
