"""The result of a dataio run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import BYTES, TEXT, COUNT, Record, figure


@dataclass
class DataioResult(Record):
    HEADLINE: ClassVar[str] = "loader_images_per_s"
    TABLE: ClassVar[tuple[str, ...]] = ("verdict", "loader_images_per_s", "loader_workers", "consumer_images_per_s",
        "consumer_source", "data_where", "free_bytes", "images", "median_file_bytes", "cold_seq_mb_s",
        "warm_seq_mb_s", "cold_files_s", "warm_files_s", "cold_note", "pil_per_core", "torchvision_per_core",
        "device_decode", "transforms_per_core", "h2d_gb_s", "verdict_line")
    LINE: ClassVar[tuple[str, ...]] = ("verdict",)
    VERDICT: ClassVar[str] = "verdict"
    REPORT_TABLE: ClassVar[str | None] = "workloads.dataio.table:report_table"

    verdict: str | None = figure("workload.shared.metric.verdict", TEXT)
    loader_images_per_s: float | None = figure("workload.dataio.metric.loader_images_per_s", "images/s")
    loader_workers: float | None = figure("workload.dataio.metric.loader_workers", COUNT)
    consumer_images_per_s: float | None = figure("workload.dataio.metric.consumer_images_per_s", "images/s")
    consumer_source: str | None = figure("workload.dataio.metric.consumer_source", TEXT)
    data_where: str | None = figure("workload.dataio.metric.data_where", TEXT)
    free_bytes: float | None = figure("workload.dataio.metric.free_bytes", BYTES)
    images: float | None = figure("workload.dataio.metric.images", COUNT)
    median_file_bytes: float | None = figure("workload.dataio.metric.median_file_bytes", BYTES)
    cold_seq_mb_s: float | None = figure("workload.dataio.metric.cold_seq_mb_s", "MB/s")
    warm_seq_mb_s: float | None = figure("workload.dataio.metric.warm_seq_mb_s", "MB/s")
    cold_files_s: float | None = figure("workload.dataio.metric.cold_files_s", "files/s")
    warm_files_s: float | None = figure("workload.dataio.metric.warm_files_s", "files/s")
    cold_note: str | None = figure("workload.dataio.metric.cold_note", TEXT)
    pil_per_core: float | None = figure("workload.dataio.metric.pil_per_core", "images/s")
    torchvision_per_core: float | None = figure("workload.dataio.metric.torchvision_per_core", "images/s")
    device_decode: float | None = figure("workload.dataio.metric.device_decode", "images/s")
    transforms_per_core: float | None = figure("workload.dataio.metric.transforms_per_core", "images/s")
    h2d_gb_s: float | None = figure("workload.dataio.metric.h2d_gb_s", "GB/s")
    verdict_line: str | None = figure("workload.dataio.metric.verdict_line", TEXT)
