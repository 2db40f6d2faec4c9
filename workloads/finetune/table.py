"""The report's table of a finetune run (torch-free): a --cold-start run's phases, else a --fit-only run's plan
(`workloads.models.llama.fit_table`, which gives a training run, with no plan, no rows)."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.cold_start import table as cold_start_table
from workloads.models.llama import fit_table


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[Any]]]:
    if cold_start_table.has_cold_start(metrics):
        return cold_start_table.step_table(metrics)
    return fit_table.report_table(metrics)
