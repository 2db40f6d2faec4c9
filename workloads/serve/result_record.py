"""The result of a serve run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free.

The rates and latencies are one level's, the result's (`at_level`): --find-max's answer, the highest level that held
the SLO, else the sweep's last measured level (`workloads.serve.table.HEADLINE`, vLLM's definitions in
`workloads.serve.figures`); the settings are the run's (`workloads.serve.sweep.Sweep._settings`); ``levels`` holds
every level's (or --duration window's) figures whole, for the report's sweep table and its 'read against' cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from workloads.catalogue import Message, message
from workloads.result_record import FRACTION, NESTED, SECONDS, TEXT, COUNT, Record, figure

# the headline and its rates are the result's level's: --find-max's answer, else the sweep's last (the load the card
# held last); `at_level` names it, and a search's answer leads the line before it
_LAST = Message("workload.serve.at_result_level")


@dataclass
class ServeResult(Record):
    HEADLINE: ClassVar[str] = "output_tokens_per_s"
    STEPS_REPEAT: ClassVar[bool] = False   # each step is a load level
    # --find-max's answer first ("50 requests/s holds the SLO; 52.2 requests/s does not"), then the level the figures
    # after it are from, then those figures
    TABLE: ClassVar[tuple[str, ...]] = ("max_rate", "missed_rate", "max_concurrency_held", "missed_concurrency",
        "search_stop", "slo", "at_level", "output_tokens_per_s", "total_tokens_per_s", "request_throughput", "goodput",
        "slo_attained",
        "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "itl_ms_p50", "e2el_ms_p50",
        "ttft_sched_ms_p99", "lag_ms_p99", "client_share", "client_ceiling_tokens_per_s", "traffic",
        "prefix_first_ttft_ms_p50", "prefix_later_ttft_ms_p50", "turn_ttft",
        "served_model", "endpoint", "input_len", "output_len", "tokens_from", "requests", "errors")
    LINE: ClassVar[tuple[str, ...]] = ("max_rate", "ttft_ms_p50", "tpot_ms_p50", "errors")
    REPORT_TABLE: ClassVar[str | None] = "workloads.serve.answer:report_table"
    MORE_TABLES: ClassVar[tuple[str, ...]] = (   # the levels' further figures by topic, each table within 120 columns
        "workloads.serve.table:requests_table", "workloads.serve.table:busy_table", "workloads.serve.table:traffic_table")
    READ_AGAINST: ClassVar[str | None] = "workloads.serve.bounds:read_against"
    # the cost table prices the headline it stands beside: output tokens at the last level's load
    COST_BASIS: ClassVar[str | None] = "tokens"

    # the result's level's rates and latencies (ms: vLLM's unit for them, and the keys say it)
    output_tokens_per_s: float | None = figure(message("workload.serve.metric.output_tokens_per_s", last=_LAST), "tokens/s")
    total_tokens_per_s: float | None = figure(message("workload.serve.metric.total_tokens_per_s", last=_LAST), "tokens/s")
    request_throughput: float | None = figure(message("workload.serve.metric.request_throughput", last=_LAST), "requests/s")
    goodput: float | None = figure(message("workload.serve.metric.goodput", last=_LAST), "requests/s")
    ttft_ms_mean: float | None = figure("workload.serve.metric.ttft_ms_mean", "ms")
    ttft_ms_p50: float | None = figure(
        "workload.serve.metric.ttft_ms_p50", "ms", short="workload.serve.line.ttft_ms_p50")
    ttft_ms_p99: float | None = figure("workload.serve.metric.ttft_ms_p99", "ms")
    tpot_ms_mean: float | None = figure("workload.serve.metric.tpot_ms_mean", "ms")
    tpot_ms_p50: float | None = figure(
        "workload.serve.metric.tpot_ms_p50", "ms", short="workload.serve.line.tpot_ms_p50")
    tpot_ms_p99: float | None = figure("workload.serve.metric.tpot_ms_p99", "ms")
    itl_ms_p50: float | None = figure("workload.serve.metric.itl_ms_p50", "ms")
    itl_ms_p99: float | None = figure("workload.serve.metric.itl_ms_p99", "ms")
    e2el_ms_p50: float | None = figure("workload.serve.metric.e2el_ms_p50", "ms")
    e2el_ms_p99: float | None = figure("workload.serve.metric.e2el_ms_p99", "ms")
    tokens_from: str | None = figure("workload.serve.metric.tokens_from", TEXT)
    # the same level's latencies from each request's due time, and the client's own queueing (due -> sent)
    ttft_sched_ms_p50: float | None = figure("workload.serve.metric.ttft_sched_ms_p50", "ms")
    ttft_sched_ms_p99: float | None = figure("workload.serve.metric.ttft_sched_ms_p99", "ms")
    e2el_sched_ms_p50: float | None = figure("workload.serve.metric.e2el_sched_ms_p50", "ms")
    e2el_sched_ms_p99: float | None = figure("workload.serve.metric.e2el_sched_ms_p99", "ms")
    lag_ms_p50: float | None = figure("workload.serve.metric.lag_ms_p50", "ms")
    lag_ms_p99: float | None = figure("workload.serve.metric.lag_ms_p99", "ms")
    slo_attained: float | None = figure("workload.serve.metric.slo_attained", FRACTION)
    # the level's streamed tokens/s or requests/s against the client's own ceiling, measured in the run
    client_share: float | None = figure("workload.serve.metric.client_share", FRACTION)
    client_ceiling_tokens_per_s: float | None = figure("workload.serve.metric.client_ceiling_tokens_per_s",
                                                       "tokens/s")
    client_ceiling_requests_per_s: float | None = figure("workload.serve.metric.client_ceiling_requests_per_s",
                                                         "requests/s")
    # --find-max: the answer, its bracket, why the search stopped, and the saturation run it started from
    find_max: str | None = figure("workload.serve.metric.find_max", TEXT)
    slo: str | None = figure("workload.serve.metric.slo", TEXT)
    max_rate: float | None = figure("workload.serve.metric.max_rate", "requests/s", short="workload.serve.line.max_rate")
    missed_rate: float | None = figure("workload.serve.metric.missed_rate", "requests/s")
    max_concurrency_held: int | None = figure("workload.serve.metric.max_concurrency_held", COUNT)
    missed_concurrency: int | None = figure("workload.serve.metric.missed_concurrency", COUNT)
    search_stop: str | None = figure("workload.serve.metric.search_stop", TEXT)
    search_levels: int | None = figure("workload.serve.metric.search_levels", COUNT)
    search_budget_s: float | None = figure("workload.serve.metric.search_budget_s", SECONDS)
    saturation_rps: float | None = figure("workload.serve.metric.saturation_rps", "requests/s")
    saturation_concurrency: int | None = figure("workload.serve.metric.saturation_concurrency", COUNT)
    # the run's settings
    served_model: str | None = figure("workload.serve.metric.served_model", TEXT)
    endpoint: str | None = figure("workload.serve.metric.endpoint", TEXT)
    input_len: int | None = figure("workload.serve.metric.input_len", COUNT)
    output_len: int | None = figure("workload.serve.metric.output_len", COUNT)
    concurrency: str | None = figure("workload.serve.metric.concurrency", TEXT)       # "1,4,16": the levels asked
    request_rate: str | None = figure("workload.serve.metric.request_rate", TEXT)     # or the Poisson rates asked
    prompts: str | None = figure("workload.serve.metric.prompts", TEXT)
    ignore_eos: bool | None = figure("workload.serve.metric.ignore_eos", TEXT)
    test_server: bool | None = figure("workload.serve.metric.test_server", TEXT)
    test_server_set: str | None = figure("workload.serve.metric.test_server_set", TEXT)
    burstiness: float | None = figure("workload.serve.metric.burstiness", COUNT)
    requests_csv_rows: int | None = figure("workload.serve.metric.requests_csv_rows", COUNT)
    traffic: str | None = figure("workload.serve.metric.traffic", TEXT)       # its shape and seed (traffic.py)
    prefix_first_ttft_ms_p50: float | None = figure("workload.serve.metric.prefix_first_ttft_ms_p50", "ms")
    prefix_later_ttft_ms_p50: float | None = figure("workload.serve.metric.prefix_later_ttft_ms_p50", "ms")
    turn_ttft: str | None = figure("workload.serve.metric.turn_ttft", TEXT)
    duration_s: float | None = figure("workload.serve.metric.duration_s", SECONDS)   # --duration runs only
    window_s: float | None = figure("workload.serve.metric.window_s", SECONDS)
    # the sweep as a whole
    at_level: str | None = figure("workload.serve.metric.at_level", TEXT)
    levels_measured: int | None = figure("workload.serve.metric.levels_measured", COUNT)
    requests: int | None = figure("workload.serve.metric.requests", COUNT)
    errors: int | None = figure("workload.serve.metric.errors", COUNT, short="workload.serve.line.errors")
    levels: list[dict[str, Any]] | None = figure("workload.serve.metric.levels", NESTED)
    notes: list[str] | None = figure("workload.serve.metric.notes", NESTED)
