"""What the workbench, the headless suite, the report and the doctor know of the data-IO workload (torch-free)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloads.spec import Metric, Param, SuiteArgs, Text, WorkloadSpec

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
CPU_NOTE = Text("no accelerator: 64 made JPEGs on the CPU, each part capped at 1 s; the verdict is against this "
                "CPU's own ResNet-50 rate", "没有加速卡：在 CPU 上用 64 张生成的 JPEG，每部分限时 1 秒；结论对照本机 CPU 的 "
                "ResNet-50 速率")

SPEC = WorkloadSpec(
    name="dataio",
    title=Text("Data IO (storage, decode, DataLoader against the card)", "数据 IO（存储、解码、DataLoader 对照加速卡）"),
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
        Metric("verdict", Text("verdict", "结论"), "text"),
        Metric("loader_images_per_s", Text("DataLoader images/s at the workers the verdict names",
                                           "结论所给工作进程数下的 DataLoader 图像/秒"), "rate"),
        Metric("loader_workers", Text("loader workers to use", "建议的 DataLoader 工作进程数")),
        Metric("consumer_images_per_s", Text("images/s the card trains at", "加速卡训练速率（图像/秒）"), "rate"),
        Metric("consumer_source", Text("the card's rate from", "加速卡速率来源"), "text"),
        Metric("data_where", Text("where the data lives", "数据所在位置"), "text"),
        Metric("free_bytes", Text("free space there", "该处可用空间"), "bytes"),
        Metric("images", Text("image files (counted or sampled)", "图像文件数（计数或抽样）")),
        Metric("median_file_bytes", Text("median image file", "图像文件大小中位数"), "bytes"),
        Metric("cold_seq_mb_s", Text("sequential read MB/s, cold cache", "顺序读 MB/s（冷缓存）"), "rate"),
        Metric("warm_seq_mb_s", Text("sequential read MB/s, warm cache", "顺序读 MB/s（热缓存）"), "rate"),
        Metric("cold_files_s", Text("small-file reads/s, cold cache", "小文件读取 个/秒（冷缓存）"), "rate"),
        Metric("warm_files_s", Text("small-file reads/s, warm cache", "小文件读取 个/秒（热缓存）"), "rate"),
        Metric("cold_note", Text("cold read", "冷读说明"), "text"),
        Metric("pil_per_core", Text("PIL JPEG decode images/s per core", "PIL JPEG 解码 图像/秒/核"), "rate"),
        Metric("torchvision_per_core", Text("torchvision decode_jpeg images/s per core",
                                            "torchvision decode_jpeg 图像/秒/核"), "rate"),
        Metric("device_decode", Text("decode_jpeg on the device, images/s", "设备上 decode_jpeg 图像/秒"), "rate"),
        Metric("transforms_per_core", Text("ResNet-50 train transforms images/s per core",
                                           "ResNet-50 训练变换 图像/秒/核"), "rate"),
        Metric("h2d_gb_s", Text("host -> device GB/s of the batches (pinned)", "批次主机到设备 GB/s（锁页）"), "rate"),
        Metric("verdict_line", Text("in words", "说明"), "text"),
    ),
    line_metrics=(Metric("verdict", Text("verdict", "结论"), "text"),),
    counts="parts",
    progress=Text("parts done", "已完成部分"),   # a step event is a part done, as microbench's
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=lambda args, config: len(PARTS),
    report_table=report_table,
    verdict="verdict",
    data_check=data_check,
)
