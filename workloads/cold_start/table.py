"""A cold start's phases as the report's table (torch-free): each phase's seconds, its share of the total and what it
measures, the read beside its bytes, rate and cold/warm state; run.log and the terminal print the same cells."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message
from workloads.cold_start.words import compile_message, reason_message, state_message
from workloads.facts.formatting import format_bytes, percent
from workloads.facts.missing import NA, finite_or_none
from workloads.facts.text_table import text_lines

COLUMNS = (Message("workload.cold_start.column.phase"), Message("workload.cold_start.column.seconds"),
           Message("workload.cold_start.column.share"), Message("workload.cold_start.column.what"))
# what differs between llm's first output (a token) and finetune's (a step): the last phase, and what the build held
_OUTPUT = {"token": ("workload.cold_start.phase.first_token", "workload.cold_start.what.first_token", "workload.cold_start.what.build"),
           "step": ("workload.cold_start.phase.first_step", "workload.cold_start.what.first_step", "workload.cold_start.what.build_step")}


def has_cold_start(metrics: Mapping[str, Any]) -> bool:
    return "cold_start_s" in metrics


def _seconds(value: Any) -> str:
    value = finite_or_none(value)
    return NA if value is None else f"{value:.3f}"


def _read_words(metrics: Mapping[str, Any]) -> Any:
    size, seconds = finite_or_none(metrics.get("cold_start_read_bytes")), finite_or_none(metrics.get("cold_start_read_s"))
    rate = f"{size / seconds / 1e9:.2f} GB/s" if size is not None and seconds else NA
    said_state = state_message(metrics.get("cold_start_read_state"))
    how = metrics.get("cold_start_read_how")
    # a run without the reason's parts (another version): its English reason as written
    reason = (reason_message(how, metrics.get("cold_start_read_resident"), metrics.get("cold_start_read_refused") or "")
              if how else str(metrics.get("cold_start_read_reason") or NA))
    return message("workload.cold_start.what.read", bytes=format_bytes(size), rate=rate, state=said_state,
                   reason=reason)


def report_table(metrics: Mapping[str, Any], output: str = "token") -> tuple[Any, list[Any], list[list[Any]]]:
    """The phases of a cold start (llm's: to the first token); no rows for a run without one."""
    if not has_cold_start(metrics):
        return "", list(COLUMNS), []
    first_phase, first_what, build_what = _OUTPUT[output]
    said_output = Message(f"workload.cold_start.output.{output}")
    total = finite_or_none(metrics.get("cold_start_s"))
    phases = (("cold_start_import_s", "workload.cold_start.phase.import", Message("workload.cold_start.what.import")),
              ("cold_start_device_s", "workload.cold_start.phase.device", Message("workload.cold_start.what.device")),
              ("cold_start_read_s", "workload.cold_start.phase.read", _read_words(metrics)),
              ("cold_start_build_s", "workload.cold_start.phase.build", Message(build_what)),
              ("cold_start_compile_s", "workload.cold_start.phase.compile",
               compile_message(metrics.get("cold_start_compile_how"), metrics.get("cold_start_compile_error"))),
              ("cold_start_first_token_s", first_phase, Message(first_what)))
    rows = []
    for key, phase, what in phases:
        value = finite_or_none(metrics.get(key))
        share = percent(value / total) if value is not None and total else NA
        rows.append([Message(phase), _seconds(value), share, what])
    rows.append([Message("workload.cold_start.phase.total"), _seconds(total), percent(1.0) if total else NA,
                 message("workload.cold_start.what.total", output=said_output)])
    return message("workload.cold_start.table.heading", output=said_output), list(COLUMNS), rows


def step_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    """finetune's: to the first optimizer step's loss."""
    return report_table(metrics, "step")


def lines(metrics: Mapping[str, Any], output: str = "token") -> list[str]:
    """The table as aligned lines for run.log and the terminal: the report's cells."""
    return text_lines(*report_table(metrics, output))
