"""The result of a microbench run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workloads.result_record import FRACTION, TEXT, Record, figure


@dataclass
class MicrobenchResult(Record):
    HEADLINE: ClassVar[str] = "gemm_best_tflops"
    TABLE: ClassVar[tuple[str, ...]] = ("gemm_best_tflops", "gemm_best_dtype", "memory_copy", "memory_copy_of_rated",
        "h2d_pinned", "pcie_link", "launch_eager_host_us", "burn", "rated_as")
    LINE: ClassVar[tuple[str, ...]] = ("burn",)
    REPORT_TABLE: ClassVar[str | None] = "workloads.microbench.table:report_table"

    gemm_best_tflops: float | None = figure("workload.microbench.metric.gemm_best_tflops", "TFLOP/s")
    gemm_best_dtype: str | None = figure("workload.microbench.metric.gemm_best_dtype", TEXT)
    memory_copy: float | None = figure("workload.microbench.metric.memory_copy", "GB/s")
    memory_copy_of_rated: float | None = figure("workload.microbench.metric.memory_copy_of_rated", FRACTION)
    h2d_pinned: float | None = figure("workload.microbench.metric.h2d_pinned", "GB/s")
    pcie_link: str | None = figure("workload.microbench.metric.pcie_link", TEXT)
    launch_eager_host_us: float | None = figure("workload.microbench.metric.launch_eager_host_us", "us")
    burn: str | None = figure("workload.microbench.metric.burn", TEXT, short="workload.microbench.line.burn")
    rated_as: str | None = figure("workload.microbench.metric.rated_as", TEXT)
