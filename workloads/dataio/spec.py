"""What the workbench, the headless suite, the report and the doctor know of the data-IO workload (torch-free)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloads.catalogue import Message
from workloads.spec import Metric, Param, SuiteArgs, WorkloadSpec

PARTS = ("survey", "storage", "decode", "loader", "verdict")


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    from workloads.dataio.table import report_table as table

    return table(metrics)


def data_check(path: str) -> dict[str, Any]:
    """`cardbench doctor --data DIR`: the quick, torch-free look at a data directory."""
    from workloads.dataio.quick import check

    return check(path)


# the standard suite has no data set: 64 made JPEGs, each timed part capped at 1 s (~15 s on a 2-core CPU; with
# a card the same, more workers). The quick suite leaves it out: `--workloads dataio` adds it
MADE = ("--make-data", "64", "--seconds", "1", "--batch-size", "16")
CPU_NOTE = Message("workload.dataio.cpu_note")

SPEC = WorkloadSpec(
    name="dataio",
    title=Message("workload.dataio.title"),
    short="DataIO",
    unit="images/s",
    headline="loader_images_per_s",
    params=(
        Param("data", "data folder", "--data", "", placeholder="/path/to/images (read only)"),
        Param("make_data", "or make N JPEGs", "--make-data", "", "int", placeholder="256 when no data folder",
              max=100_000),
        Param("seconds", "seconds per part", "--seconds", "2", "int", max=600),
        Param("max_workers", "most loader workers", "--max-workers", "", "int", placeholder="the cores", max=1024),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
    suite=SuiteArgs(standard=MADE, quick=MADE, cpu_standard=MADE, cpu_quick=MADE,
                    cpu_standard_note=CPU_NOTE, cpu_quick_note=CPU_NOTE, suites=("standard",)),
    metrics=(
        Metric("verdict", Message("workload.shared.metric.verdict"), "text"),
        Metric("loader_images_per_s", Message("workload.dataio.metric.loader_images_per_s"), "rate"),
        Metric("loader_workers", Message("workload.dataio.metric.loader_workers")),
        Metric("consumer_images_per_s", Message("workload.dataio.metric.consumer_images_per_s"), "rate"),
        Metric("consumer_source", Message("workload.dataio.metric.consumer_source"), "text"),
        Metric("data_where", Message("workload.dataio.metric.data_where"), "text"),
        Metric("free_bytes", Message("workload.dataio.metric.free_bytes"), "bytes"),
        Metric("images", Message("workload.dataio.metric.images")),
        Metric("median_file_bytes", Message("workload.dataio.metric.median_file_bytes"), "bytes"),
        Metric("cold_seq_mb_s", Message("workload.dataio.metric.cold_seq_mb_s"), "rate"),
        Metric("warm_seq_mb_s", Message("workload.dataio.metric.warm_seq_mb_s"), "rate"),
        Metric("cold_files_s", Message("workload.dataio.metric.cold_files_s"), "rate"),
        Metric("warm_files_s", Message("workload.dataio.metric.warm_files_s"), "rate"),
        Metric("cold_note", Message("workload.dataio.metric.cold_note"), "text"),
        Metric("pil_per_core", Message("workload.dataio.metric.pil_per_core"), "rate"),
        Metric("torchvision_per_core", Message("workload.dataio.metric.torchvision_per_core"), "rate"),
        Metric("device_decode", Message("workload.dataio.metric.device_decode"), "rate"),
        Metric("transforms_per_core", Message("workload.dataio.metric.transforms_per_core"), "rate"),
        Metric("h2d_gb_s", Message("workload.dataio.metric.h2d_gb_s"), "rate"),
        Metric("verdict_line", Message("workload.dataio.metric.verdict_line"), "text"),
    ),
    line_metrics=(Metric("verdict", Message("workload.shared.metric.verdict"), "text"),),
    counts="parts",
    progress=Message("workload.shared.progress"),   # a step event is a part done, as microbench's
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=lambda args, config: len(PARTS),
    report_table=report_table,
    verdict="verdict",
    data_check=data_check,
)
