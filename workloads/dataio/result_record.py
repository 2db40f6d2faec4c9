"""The result of a dataio run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from workloads.result_record import NESTED, BYTES, TEXT, COUNT, Record, figure


@dataclass
class DataioResult(Record):
    HEADLINE: ClassVar[str] = "loader_images_per_s"
    # the verdict's sentence is the sweep table's heading (table.report_table), said from these figures
    TABLE: ClassVar[tuple[str, ...]] = ("verdict", "image_size", "loader_images_per_s", "loader_workers",
        "consumer_images_per_s", "consumer_basis", "consumer_run", "consumer_image_size",
        "consumer_measured_images_per_s", "data_where", "free_bytes", "images", "median_file_bytes", "cold_seq_mb_s",
        "warm_seq_mb_s", "cold_files_s", "warm_files_s", "cold_note", "pil_per_core", "torchvision_per_core",
        "device_decode", "transforms_per_core", "h2d_gb_s")
    LINE: ClassVar[tuple[str, ...]] = ("verdict",)
    VERDICT: ClassVar[str] = "verdict"
    # what went wrong: the loader or the storage cannot feed the card ("compute-bound" is a healthy pipeline, and
    # "no card rate" / "no figure" say what was not measured, which the verdict's own line explains)
    PROBLEMS: ClassVar[tuple[str, ...]] = ("data-bound", "storage-bound")
    REPORT_TABLE: ClassVar[str | None] = "workloads.dataio.table:report_table"

    verdict: str | None = figure("workload.shared.metric.verdict", TEXT)
    image_size: int | None = figure("workload.dataio.metric.image_size", "px")
    loader_images_per_s: float | None = figure("workload.dataio.metric.loader_images_per_s", "images/s")
    loader_workers: int | None = figure("workload.dataio.metric.loader_workers", COUNT)
    consumer_images_per_s: float | None = figure("workload.dataio.metric.consumer_images_per_s", "images/s")
    # where the card's rate is from (workloads/dataio/consumer.py), and the size it was measured at
    consumer_basis: str | None = figure("workload.dataio.metric.consumer_basis", TEXT)
    consumer_run: str | None = figure("workload.dataio.metric.consumer_run", TEXT)
    consumer_image_size: int | None = figure("workload.dataio.metric.consumer_image_size", "px")
    consumer_measured_images_per_s: float | None = figure("workload.dataio.metric.consumer_measured_images_per_s",
                                                          "images/s")
    consumer_steps: int | None = figure("workload.dataio.metric.consumer_steps", COUNT)
    # a storage-bound run's advice: a local folder with room for the data
    room_where: str | None = figure("workload.dataio.metric.room_where", TEXT)
    room_free_bytes: int | None = figure("workload.dataio.metric.room_free_bytes", BYTES)
    # a run from before the figures above said its source and its verdict as English sentences: read as written
    consumer_source: str | None = figure("workload.dataio.metric.consumer_source", TEXT)
    data_where: str | None = figure("workload.dataio.metric.data_where", TEXT)
    free_bytes: int | None = figure("workload.dataio.metric.free_bytes", BYTES)
    images: int | None = figure("workload.dataio.metric.images", COUNT)
    median_file_bytes: int | None = figure("workload.dataio.metric.median_file_bytes", BYTES)
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
    verdict_line: str | None = figure("workload.dataio.metric.verdict_line", TEXT)   # old runs only, as above
    # the run: made data or the user's, on which device
    data_made: int | None = figure("workload.dataio.metric.data_made", COUNT)
    device: str | None = figure("workload.shared.metric.device", TEXT)
    # the survey (table.survey_metrics)
    fs_type: str | None = figure("workload.dataio.metric.fs_type", TEXT)
    data_kind: str | None = figure("workload.dataio.metric.data_kind", TEXT)
    files: int | None = figure("workload.dataio.metric.files", COUNT)
    data_bytes: int | None = figure("workload.dataio.metric.data_bytes", BYTES)
    survey_complete: bool | None = figure("workload.dataio.metric.survey_complete", TEXT)
    p90_file_bytes: int | None = figure("workload.dataio.metric.p90_file_bytes", BYTES)
    largest_file_bytes: int | None = figure("workload.dataio.metric.largest_file_bytes", BYTES)
    unreadable: int | None = figure("workload.dataio.metric.unreadable", COUNT)
    link_loops: int | None = figure("workload.dataio.metric.link_loops", COUNT)
    oversize: int | None = figure("workload.dataio.metric.oversize", COUNT)
    # the storage part (storage.measure)
    sequential_files: int | None = figure("workload.dataio.metric.sequential_files", COUNT)
    small_files: int | None = figure("workload.dataio.metric.small_files", COUNT)
    read_failed: int | None = figure("workload.dataio.metric.read_failed", COUNT)
    # the decode part (decode.measure), and the images it skipped by kind (images.PROBLEMS: bad_<kind>)
    decode_files: int | None = figure("workload.dataio.metric.decode_files", COUNT)
    decode_round_note: str | None = figure("workload.dataio.metric.decode_round_note", TEXT)
    median_pixels: int | None = figure("workload.dataio.metric.median_pixels", COUNT)
    device_decode_note: str | None = figure("workload.dataio.metric.device_decode_note", TEXT)
    bad_misnamed: int | None = figure("workload.dataio.metric.bad_misnamed", COUNT)
    bad_truncated: int | None = figure("workload.dataio.metric.bad_truncated", COUNT)
    bad_huge: int | None = figure("workload.dataio.metric.bad_huge", COUNT)
    bad_unreadable: int | None = figure("workload.dataio.metric.bad_unreadable", COUNT)
    bad_oversize: int | None = figure("workload.dataio.metric.bad_oversize", COUNT)
    # the loader sweep, kept whole in events.jsonl (the report's sweep table), and the cores it could use
    loader: list[dict[str, Any]] | None = figure("workload.dataio.metric.loader", NESTED)
    cores: int | None = figure("workload.dataio.metric.cores", COUNT)
