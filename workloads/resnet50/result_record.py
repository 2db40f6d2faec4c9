"""The result of a resnet50 run as a typed record (`workloads.result_record`): each figure with its label and unit,
torch-free. It declares every figure of every path: a training run (`result.report`, with ``--val``'s figures), an
``--eval-only`` run (`evaluate.evaluate_only`) and ``--find-batch-size`` (`find_batch_size._result`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

# NESTED is the unit "table": in the class body TABLE is the report's table (a ClassVar)
from workloads.cpu_fallback_record import CpuFallbackFigures
from workloads.result_record import NESTED, BYTES, COUNT, FRACTION, SECONDS, TEXT, Record, figure

_OWN = "workload.resnet50.metric."
_SHARED = "workload.shared.metric."


@dataclass
class ResNet50Result(CpuFallbackFigures, Record):
    HEADLINE: ClassVar[str] = "images_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("images_per_s", "images_per_s_compute", "data_wait_fraction", "val_top1",
        "val_top5", "image_size", "steps", "total_s")
    LINE: ClassVar[tuple[str, ...]] = ("final_loss",)
    COST_BASIS: ClassVar[str | None] = "images"

    # a training run (result.report)
    images_per_s: float | None = figure(_OWN + "images_per_s", "images/s")
    images_per_s_compute: float | None = figure(_OWN + "images_per_s_compute", "images/s")
    images_per_s_min: float | None = figure(_OWN + "images_per_s_min", "images/s")
    images_per_s_max: float | None = figure(_OWN + "images_per_s_max", "images/s")
    data_wait_fraction: float | None = figure(_OWN + "data_wait_fraction", FRACTION)
    total_s: float | None = figure(_SHARED + "total_s", SECONDS)
    setup_s: float | None = figure(_SHARED + "setup_s", SECONDS)
    final_loss: float | None = figure("workload.shared.line.final_loss", COUNT)
    nonfinite_loss_steps: int | None = figure(_OWN + "nonfinite_loss_steps", COUNT)
    precision: str | None = figure(_SHARED + "precision", TEXT)
    precision_requested: str | None = figure(_SHARED + "precision_requested", TEXT)
    peak_memory_bytes: int | None = figure(_SHARED + "peak_memory_bytes", BYTES)
    peak_memory_reserved_bytes: int | None = figure(_SHARED + "peak_memory_reserved_bytes", BYTES)
    batch_size: int | None = figure(_SHARED + "batch_size", COUNT)
    global_batch_size: int | None = figure(_SHARED + "global_batch_size", COUNT)
    image_size: int | None = figure(_OWN + "image_size", COUNT)
    steps: int | None = figure(_SHARED + "steps", COUNT)
    steps_counted: int | None = figure(_SHARED + "steps_counted", COUNT)
    warmup_steps: int | None = figure(_SHARED + "warmup_steps", COUNT)
    last_step: int | None = figure(_SHARED + "last_step", COUNT)
    epochs: int | None = figure(_SHARED + "epochs", COUNT)
    num_classes: int | None = figure(_OWN + "num_classes", COUNT)
    data: str | None = figure(_OWN + "data", TEXT)
    skipped_files: int | None = figure(_OWN + "skipped_files", COUNT)
    skipped_examples: list[str] | None = figure(_OWN + "skipped_examples", NESTED)
    fallbacks: list[str] | None = figure(_SHARED + "fallbacks", NESTED)
    world_size: int | None = figure(_SHARED + "world_size", COUNT)
    device: str | None = figure(_SHARED + "device", TEXT)
    channels_last: bool | None = figure(_OWN + "channels_last", TEXT)
    compiled: bool | None = figure(_SHARED + "compiled", TEXT)
    # what the figure is read against (baselines.py): NVIDIA's published figures at 224 px, the FLOP bound
    published_images_per_s: dict[str, float] | None = figure(_OWN + "published_images_per_s", NESTED)
    gflop_per_image: float | None = figure(_OWN + "gflop_per_image", "GFLOP/image")
    achieved_tflops: float | None = figure(_SHARED + "achieved_tflops", "TFLOP/s")
    peak_tflops: float | None = figure(_SHARED + "peak_tflops", "TFLOP/s", kind="number")
    flop_utilisation: float | None = figure(_SHARED + "flop_utilisation", FRACTION)
    # --val DIR (evaluate.Validation.metrics): the last evaluation, and each one by epoch
    val_top1: float | None = figure(_OWN + "val_top1", FRACTION)
    val_top5: float | None = figure(_OWN + "val_top5", FRACTION)
    val_images: int | None = figure(_OWN + "val_images", COUNT)
    val_skipped_files: int | None = figure(_OWN + "val_skipped_files", COUNT)
    val_data: str | None = figure(_OWN + "val_data", TEXT)
    val_history: list[dict[str, Any]] | None = figure(_OWN + "val_history", NESTED)
    # --eval-only (evaluate.evaluate_only): the --weights scored, no training
    eval_images_per_s: float | None = figure(_OWN + "eval_images_per_s", "images/s")
    eval_only: bool | None = figure(_OWN + "eval_only", TEXT)
    weights: str | None = figure(_OWN + "weights", TEXT)
    # --find-batch-size (find_batch_size._result); its images_per_s is the one timed step at the largest batch
    max_batch_size: int | None = figure(_OWN + "max_batch_size", COUNT)
    smallest_failing_batch_size: int | None = figure(_OWN + "smallest_failing_batch_size", COUNT)
    capped: bool | None = figure(_OWN + "capped", TEXT)
    max_batch_size_cap: int | None = figure(_OWN + "max_batch_size_cap", COUNT)
    tried: list[dict[str, Any]] | None = figure(_OWN + "tried", NESTED)
