"""The result of a resnet50 run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import SECONDS, FRACTION, COUNT, Record, figure


@dataclass
class ResNet50Result(Record):
    HEADLINE: ClassVar[str] = "images_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("images_per_s", "images_per_s_compute", "data_wait_fraction", "val_top1",
        "val_top5", "image_size", "steps", "total_s")
    LINE: ClassVar[tuple[str, ...]] = ("final_loss",)
    COST_BASIS: ClassVar[str | None] = "images"

    images_per_s: float | None = figure("workload.resnet50.metric.images_per_s", "images/s")
    images_per_s_compute: float | None = figure("workload.resnet50.metric.images_per_s_compute", "images/s")
    data_wait_fraction: float | None = figure("workload.resnet50.metric.data_wait_fraction", FRACTION)
    val_top1: float | None = figure("workload.resnet50.metric.val_top1", FRACTION)
    val_top5: float | None = figure("workload.resnet50.metric.val_top5", FRACTION)
    image_size: float | None = figure("workload.resnet50.metric.image_size", COUNT)
    steps: float | None = figure("workload.shared.metric.steps", COUNT)
    total_s: float | None = figure("workload.shared.metric.total_s", SECONDS)
    final_loss: float | None = figure("workload.shared.line.final_loss", COUNT)
