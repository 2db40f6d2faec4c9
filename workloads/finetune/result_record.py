"""The result of a finetune run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import SECONDS, FRACTION, BYTES, TEXT, COUNT, Record, figure


@dataclass
class FinetuneResult(Record):
    HEADLINE: ClassVar[str] = "tokens_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("tokens_per_s", "tokens_per_s_per_device", "mfu", "mfu_formula",
        "rated_tflops", "peak_memory_bytes", "fit_estimate_bytes", "data_wait_fraction", "trainable_parameters",
        "first_loss", "cpu_check", "steps", "total_s")
    LINE: ClassVar[tuple[str, ...]] = ("final_loss", "mfu")
    COST_BASIS: ClassVar[str | None] = "tokens"

    tokens_per_s: float | None = figure("workload.finetune.metric.tokens_per_s", "tokens/s")
    tokens_per_s_per_device: float | None = figure("workload.finetune.metric.tokens_per_s_per_device", "tokens/s")
    mfu: float | None = figure("workload.finetune.metric.mfu", FRACTION, short="workload.finetune.line.mfu")
    mfu_formula: str | None = figure("workload.finetune.metric.mfu_formula", TEXT)
    rated_tflops: float | None = figure("workload.finetune.metric.rated_tflops", "TFLOP/s", kind="number")
    peak_memory_bytes: float | None = figure("workload.finetune.metric.peak_memory_bytes", BYTES)
    fit_estimate_bytes: float | None = figure("workload.finetune.metric.fit_estimate_bytes", BYTES)
    data_wait_fraction: float | None = figure("workload.finetune.metric.data_wait_fraction", FRACTION)
    trainable_parameters: float | None = figure("workload.finetune.metric.trainable_parameters", COUNT)
    first_loss: float | None = figure("workload.finetune.metric.first_loss", COUNT)
    cpu_check: str | None = figure("workload.finetune.metric.cpu_check", TEXT)
    steps: float | None = figure("workload.shared.metric.steps", COUNT)
    total_s: float | None = figure("workload.shared.metric.total_s", SECONDS)
    final_loss: float | None = figure("workload.shared.line.final_loss", COUNT)
