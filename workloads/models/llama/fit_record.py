"""The fit plan's figures (`workloads.models.llama.fit_plan.plan`) as fields a workload's result record inherits:
llm's and finetune's, so a --fit-only run of either carries the same keys and prints the same table (torch-free)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads.result_record import BYTES, COUNT, NESTED, TEXT, Record, figure

_FIT = "workload.fit.metric."


@dataclass
class FitFigures(Record):
    fit: list[dict[str, Any]] | None = figure(_FIT + "fit", NESTED)
    fit_targets: list[dict[str, Any]] | None = figure(_FIT + "targets", NESTED)
    # the runtime's lines of the inference estimate (workloads/models/llama/runtime_cost.py)
    fit_context_bytes: int | None = figure(_FIT + "context_bytes", BYTES)
    fit_allocator_bytes: int | None = figure(_FIT + "allocator_bytes", BYTES)
    fit_graph_pool_bytes: int | None = figure(_FIT + "graph_pool_bytes", BYTES)
    fit_collectives_bytes: int | None = figure(_FIT + "collectives_bytes", BYTES)
    fit_accelerate_bytes: int | None = figure(_FIT + "accelerate_bytes", BYTES)
    fit_accelerate_training_bytes: int | None = figure(_FIT + "accelerate_training_bytes", BYTES)
    fit_price_per_hour: float | None = figure(_FIT + "price_per_hour", COUNT)
    fit_currency: str | None = figure(_FIT + "currency", TEXT)
    fit_dtype: str | None = figure(_FIT + "dtype", TEXT)
    fit_batch: int | None = figure(_FIT + "batch", COUNT)
    fit_context: int | None = figure(_FIT + "context", COUNT)
    fit_prefill: int | None = figure(_FIT + "prefill", COUNT)
