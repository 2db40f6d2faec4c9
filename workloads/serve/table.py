"""A sweep's levels as the run.log line, the result's figures, the report's table and the run's closing lines
(torch-free): one set of cells, so they never disagree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from workloads.catalogue import Message, message
from workloads.facts.missing import NA
from workloads.facts.text_table import text_lines

# the result's flat figures: those of the sweep's last measured level (the highest concurrency or rate)
HEADLINE = ("output_tokens_per_s", "total_tokens_per_s", "request_throughput", "goodput",
            "ttft_ms_mean", "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_mean", "tpot_ms_p50", "tpot_ms_p99",
            "itl_ms_p50", "itl_ms_p99", "e2el_ms_p50", "e2el_ms_p99", "tokens_from", "ttft_sched_ms_p50",
            "ttft_sched_ms_p99", "e2el_sched_ms_p50", "e2el_sched_ms_p99", "lag_ms_p50", "lag_ms_p99", "slo_attained",
            "client_share", "prefix_first_ttft_ms_p50", "prefix_later_ttft_ms_p50", "turn_ttft")
_LEVEL = (("level", Message("workload.serve.progress")),)
# the level's figures in tables by topic, each within 120 columns (one held them all and ran 233 wide, which a log pane
# wraps into fragments): speed and latency first (the report's table), then the requests from their due time and the
# SLO, what was busy, and the traffic's shape; the level leads each, so a row reads alone
COLUMNS: tuple[tuple[str, Message], ...] = _LEVEL + (
    ("request_throughput", Message("workload.serve.column.request_throughput")),
    ("output_tokens_per_s", Message("workload.serve.column.output_tokens_per_s")),
    ("ttft_ms_p50", Message("workload.serve.line.ttft_ms_p50")),
    ("ttft_ms_p99", Message("workload.serve.column.ttft_ms_p99")),
    ("tpot_ms_p50", Message("workload.serve.line.tpot_ms_p50")),
    ("tpot_ms_p99", Message("workload.llm.column.tpot_p99_ms")),
    ("itl_ms_p50", Message("workload.serve.column.itl_ms_p50")),
    ("e2el_ms_p50", Message("workload.serve.column.e2el_ms_p50")),
)
REQUESTS: tuple[tuple[str, Message], ...] = _LEVEL + (
    ("requests", Message("workload.serve.column.requests")),
    ("errors", Message("workload.serve.column.errors")),
    ("ttft_sched_ms_p99", Message("workload.serve.column.ttft_sched_ms_p99")),
    ("lag_ms_p99", Message("workload.serve.column.lag_ms_p99")),
    ("goodput", Message("workload.serve.column.goodput")),
    ("slo_holds", Message("workload.serve.column.slo_holds")),
)
BUSY: tuple[tuple[str, Message], ...] = _LEVEL + (
    ("client_share", Message("workload.serve.column.client_share")),
    ("card_util_pct", Message("workload.serve.column.card_util_pct")),
    ("card_mem_peak_bytes", Message("workload.serve.column.card_mem_peak_bytes")),
    ("card_power_w", Message("workload.serve.column.card_power_w")),
)
TRAFFIC: tuple[tuple[str, Message], ...] = _LEVEL + (
    ("prefix_first_ttft_ms_p50", Message("workload.serve.column.prefix_first_ttft_ms_p50")),
    ("prefix_later_ttft_ms_p50", Message("workload.serve.column.prefix_later_ttft_ms_p50")),
    ("turn_ttft", Message("workload.serve.column.turn_ttft")),
)
ALL = COLUMNS + REQUESTS[1:] + BUSY[1:] + TRAFFIC[1:]   # every column, for a level's run.log line


OPTIONAL = frozenset(("goodput", "slo_holds", "client_share", "prefix_first_ttft_ms_p50", "prefix_later_ttft_ms_p50",
                      "turn_ttft"))


def figure(value: float) -> str:
    """A figure as the table, the run.log line and the summary print it: three significant digits, whole numbers with
    thousands separators from 100 up ('4.12', '57.1', '3,494')."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def cell(row: Mapping[str, Any], key: str) -> str:
    value = row.get(key)
    if key == "slo_holds":     # the verdict and the share of requests that met every limit: '✓ 99.4 %'
        share = row.get("slo_attained")
        return NA if value is None else f"{'✓' if value else '✗'} {share:.1%}" if share is not None else NA
    if key == "client_share" and isinstance(value, (int, float)):
        value = value * 100
    if key == "card_mem_peak_bytes" and isinstance(value, (int, float)):
        value = value / 2**30
    if value is None:
        return NA
    if isinstance(value, float):
        return figure(value)
    return str(value)


def level_line(row: Mapping[str, Any]) -> str:
    """'concurrency 16: 64 requests, 0 errors, 3.1 req/s, 412 output tok/s, TTFT p50 48.2 ms ...'."""
    parts = [f"{row.get('requests')} requests, {row.get('errors')} errors"]
    parts += [f"{label.en} {cell(row, key)}" for key, label in ALL[1:]
              if key not in ("requests", "errors") and row.get(key) is not None]
    if not row.get("card_samples"):
        parts.append("no card telemetry in the level")
    return f"{row.get('level')}: " + ", ".join(parts) + f" (output tokens from {row.get('tokens_from')})"


def step_label(row: Mapping[str, Any]) -> str:
    """The terminal's progress words for a level: 'concurrency 16: TTFT p50 52.0 ms, TPOT p50 6.24 ms, 0 errors'."""
    return (f"{row.get('level')}: TTFT p50 {cell(row, 'ttft_ms_p50')} ms, TPOT p50 {cell(row, 'tpot_ms_p50')} ms, "
            f"{row.get('errors')} of {row.get('requests')} failed")


def measured(rows: Any) -> list[Mapping[str, Any]]:
    """The levels (or windows) that completed a request: those with figures to read."""
    return [r for r in rows if isinstance(r, dict) and r.get("completed")] if isinstance(rows, list) else []


@dataclass(frozen=True)
class FindMaxKeys:
    level: str      # a row's key for its level (load.Level's kind)
    held: str       # the result's key for the highest level that held the SLO
    missed: str     # ... and for the lowest above it that missed
    ceiling: str    # ... and for the saturation run's ceiling


# --find-max's kind -> its keys (any kind but "rate" reads as concurrency)
KEYS = {"rate": FindMaxKeys("rate", "max_rate", "missed_rate", "saturation_rps"),
        "concurrency": FindMaxKeys("concurrency", "max_concurrency_held", "missed_concurrency",
                                   "saturation_concurrency")}


def find_max_keys(kind: Any) -> FindMaxKeys:
    return KEYS["rate" if kind == "rate" else "concurrency"]


def answer_row(rows: Any, found: Mapping[str, Any], missed: bool = False) -> dict[str, Any] | None:
    """--find-max's answer: the row of the highest level that held the SLO, or (``missed``: for the sentence when
    none held) of the lowest level that missed; None: no search, or no such level among ``rows`` (a result's
    ``levels``)."""
    keys = find_max_keys(found.get("find_max"))
    value = found.get(keys.missed if missed else keys.held)
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    picked = [r for r in rows if value is not None and r.get(keys.level) == value and (missed or r.get("slo_holds"))]
    return picked[-1] if picked else None


def result_of(rows: list[dict[str, Any]], settings: dict[str, Any], notes: list[str],
              at: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The result's figures: those of ``at`` (--find-max's answer), else of the last level that completed a request."""
    done = measured(rows)
    last = at if at is not None else done[-1] if done else {}
    out: dict[str, Any] = {k: last.get(k) for k in HEADLINE if last.get(k) is not None}
    out.update(settings)
    out.update(at_level=last.get("level"), levels_measured=len(rows), errors=sum(r.get("errors", 0) for r in rows),
               requests=sum(r.get("requests", 0) for r in rows), levels=rows)
    if notes:
        out["notes"] = notes
    return out


_TEST_SERVER = Message("workload.serve.test_server")


def _levels(metrics: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = metrics.get("levels")
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def _table(heading: Any, columns: Sequence[tuple[str, Message]],
           rows: list[dict[str, Any]]) -> tuple[Any, list[Any], list[list[str]]]:
    """``rows`` under ``columns``; a column only some runs fill (an SLO's, a traffic shape's) is left out where no
    row has it, and a table left with the level alone has no rows (nothing of its topic ran)."""
    shown = [(key, label) for key, label in columns if key not in OPTIONAL or any(r.get(key) is not None for r in rows)]
    if len(shown) == 1:
        rows = []
    return heading, [label for _, label in shown], [[cell(r, key) for key, _ in shown] for r in rows]


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """Each level's speed and latency (vLLM's figures)."""
    first = _TEST_SERVER if metrics.get("test_server") is True else ""   # `--test-server`, in the result
    return _table(message("workload.serve.table.heading", first=first), COLUMNS, _levels(metrics))


def requests_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """Each level's requests and errors, its latency from the requests' due time and the SLO's verdict."""
    return _table(message("workload.serve.table.requests_heading"), REQUESTS, _levels(metrics))


def busy_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """What was busy while each level ran: the client (its share of its ceiling) and the card (its telemetry)."""
    return _table(message("workload.serve.table.busy_heading"), BUSY, _levels(metrics))


def traffic_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    """A traffic shape's figures (--prefix groups, --multi-turn turns); no rows where the run had none."""
    return _table(message("workload.serve.table.traffic_heading"), TRAFFIC, _levels(metrics))


MORE_TABLES = (requests_table, busy_table, traffic_table)


def lines(metrics: Mapping[str, Any]) -> list[str]:
    """The report's tables as aligned lines for run.log: the same cells; a long --duration run's first rows."""
    more = lambda rows: message("workload.serve.table.more", rows=rows)  # noqa: E731 - one message, every table
    return [line for table in (report_table, *MORE_TABLES) for line in text_lines(*table(metrics), more=more)]
