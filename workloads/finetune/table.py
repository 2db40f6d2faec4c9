"""The report's tables of a finetune run (torch-free): a --cold-start run's phases, else a --fit-only run's plan
(`workloads.models.llama.fit_table`: the estimate, then the verdicts and the runtime's lines as the record's
MORE_TABLES; a training run, with no plan, has no rows in any)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.cold_start import table as cold_start_table
from workloads.models.llama import fit_table


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    if cold_start_table.has_cold_start(metrics):
        return cold_start_table.step_table(metrics)
    return fit_table.estimate_table(metrics)


def fit_verdicts(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    return fit_table.verdict_table({} if cold_start_table.has_cold_start(metrics) else metrics)


def fit_runtime(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    return fit_table.runtime_table({} if cold_start_table.has_cold_start(metrics) else metrics)
