"""The result of a finetune run as a typed record (`workloads.result_record`): each figure with its label and unit,
torch-free. It declares every figure the run gives (`train._figures`) and ``--check-against-cpu``'s
(`cpu_check.compare`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

# the unit "table" by another name: in the class body TABLE is the report's table (a ClassVar), not the unit
from workloads.models.llama.fit_record import FitFigures
from workloads.cold_start.result_record import ColdStartFigures
from workloads.result_record import NESTED, BYTES, COUNT, FRACTION, SECONDS, TEXT, figure
from workloads.cpu_fallback_record import CpuFallbackFigures

_OWN = "workload.finetune.metric."
_SHARED = "workload.shared.metric."


@dataclass
class FinetuneResult(FitFigures, ColdStartFigures, CpuFallbackFigures):   # --fit-only's plan, --cold-start's phases and
    # the CPU fallback check's figures, inherited
    HEADLINE: ClassVar[str] = "tokens_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("tokens_per_s", "tokens_per_s_per_device", "mfu", "mfu_formula",
        "rated_tflops", "peak_memory_bytes", "peak_memory_growth_bytes", "fit_estimate_bytes", "data_wait_fraction", "trainable_parameters",
        "first_loss", "cpu_check", "steps", "total_s")
    LINE: ClassVar[tuple[str, ...]] = ("final_loss", "mfu")
    PLAN_LINE: ClassVar[tuple[str, ...]] = ("model_size", "mode", "precision", "seq_len", "batch_size")
    COST_BASIS: ClassVar[str | None] = "tokens"
    # a --fit-only run's plan, a --cold-start run's phases; a training run has neither table
    REPORT_TABLE: ClassVar[str | None] = "workloads.finetune.table:report_table"
    # a --fit-only run's verdicts and runtime lines, under its estimate (REPORT_TABLE's)
    MORE_TABLES: ClassVar[tuple[str, ...]] = ("workloads.finetune.table:fit_verdicts",
                                              "workloads.finetune.table:fit_runtime")

    # --cold-start's first output is the first optimizer step's loss, not a token
    cold_start_first_token_s: float | None = figure("workload.cold_start.metric.first_step_s", SECONDS)

    tokens_per_s: float | None = figure(_OWN + "tokens_per_s", "tokens/s")
    tokens_per_s_per_device: float | None = figure(_OWN + "tokens_per_s_per_device", "tokens/s")
    achieved_tflops_per_device: float | None = figure(_OWN + "achieved_tflops_per_device", "TFLOP/s")
    mfu: float | None = figure(_OWN + "mfu", FRACTION, short="workload.finetune.line.mfu")
    mfu_formula: str | None = figure(_OWN + "mfu_formula", TEXT)
    model_flops_per_token: float | None = figure(_OWN + "model_flops_per_token", "FLOP/token")
    # the peak MFU is read against (workloads/facts/rated.csv): None on the CPU, which has no rated figure
    rated_tflops: float | None = figure(_OWN + "rated_tflops", "TFLOP/s", kind="number")
    rated_figure: str | None = figure(_OWN + "rated_figure", TEXT)
    rated_source: str | None = figure(_SHARED + "rated_source", TEXT)
    rated_words: str | None = figure(_OWN + "rated_words", TEXT)
    peak_memory_bytes: int | None = figure(_OWN + "peak_memory_bytes", BYTES)
    peak_memory_reserved_bytes: int | None = figure(_SHARED + "peak_memory_reserved_bytes", BYTES)
    # the peak less what the process held before the model: like for like beside the estimate (issue 36 item 9)
    peak_memory_growth_bytes: int | None = figure(_OWN + "peak_memory_growth_bytes", BYTES)
    fit_estimate_bytes: int | None = figure(_OWN + "fit_estimate_bytes", BYTES)
    fit_estimate: dict[str, int] | None = figure(_OWN + "fit_estimate", NESTED)
    data_wait_fraction: float | None = figure(_OWN + "data_wait_fraction", FRACTION)
    losses: list[float] | None = figure(_OWN + "losses", NESTED)
    first_loss: float | None = figure(_OWN + "first_loss", COUNT)
    final_loss: float | None = figure("workload.shared.line.final_loss", COUNT)
    steps: int | None = figure(_SHARED + "steps", COUNT)
    steps_counted: int | None = figure(_SHARED + "steps_counted", COUNT)
    warmup_steps: int | None = figure(_SHARED + "warmup_steps", COUNT)
    total_s: float | None = figure(_SHARED + "total_s", SECONDS)
    setup_s: float | None = figure(_SHARED + "setup_s", SECONDS)
    # the run's shape
    mode: str | None = figure(_OWN + "mode", TEXT)
    model_size: str | None = figure(_SHARED + "model_size", TEXT)
    seq_len: int | None = figure(_OWN + "seq_len", COUNT)
    batch_size: int | None = figure(_OWN + "batch_size", COUNT)   # the global batch: not the shared per-device one
    micro_batch_size: int | None = figure(_OWN + "micro_batch_size", COUNT)
    grad_accum: int | None = figure(_OWN + "grad_accum", COUNT)
    activation_checkpointing: bool | None = figure(_OWN + "activation_checkpointing", TEXT)
    parameters: int | None = figure(_SHARED + "parameters", COUNT)
    trainable_parameters: int | None = figure(_OWN + "trainable_parameters", COUNT)
    lora_rank: int | None = figure(_OWN + "lora_rank", COUNT)
    lora_targets: list[str] | None = figure(_OWN + "lora_targets", NESTED)
    precision: str | None = figure(_SHARED + "precision", TEXT)
    precision_requested: str | None = figure(_SHARED + "precision_requested", TEXT)
    fallbacks: list[str] | None = figure(_SHARED + "fallbacks", NESTED)
    # --compile's scope that ran: "block", "model" or "off" (a compile that failed its first step leaves "off")
    compiled: str | None = figure(_OWN + "compiled", TEXT)
    world_size: int | None = figure(_SHARED + "world_size", COUNT)
    device: str | None = figure(_SHARED + "device", TEXT)
    # --check-against-cpu K (cpu_check.compare): the first K losses against float64 on the CPU
    cpu_check: str | None = figure(_OWN + "cpu_check", TEXT)
    cpu_check_ok: bool | None = figure(_OWN + "cpu_check_ok", TEXT)
    cpu_check_max_relative_difference: float | None = figure(_OWN + "cpu_check_max_relative_difference", COUNT)
    cpu_check_bound: float | None = figure(_OWN + "cpu_check_bound", COUNT)
    cpu_check_losses: list[float] | None = figure(_OWN + "cpu_check_losses", NESTED)
