"""The result of a microbench run as a typed record (`workloads.result_record`): each figure with its label and unit, torch-free.

Every part's figure is flat in the result (`workloads.microbench.figures.flat`): its measured value and, for a part
a data sheet rates (gemm, memory, transfer), ``<key>_rated`` and ``<key>_of_rated`` beside it. A GEMM's key is made
from its dtype and a collective's from its op, so those are families; the dtypes and ops are the ones
``--dtypes`` and ``--coll-ops`` take (a test holds them to `workloads.microbench.gemm.DTYPES` and
`workloads.microbench.collectives.OPS`, which import torch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from workloads.result_record import FRACTION, NESTED, TEXT, Family, Record, figure

FLOATS, INTS = "fp32|tf32|fp16|bf16|fp8", "int8"   # GEMM dtypes: an integer one counts TOPS, not TFLOP/s
FLOAT_DTYPES, INT_DTYPES, ANY_DTYPE = f"(?P<dtype>{FLOATS})", f"(?P<dtype>{INTS})", f"(?P<dtype>{FLOATS}|{INTS})"
MEMORY_OPS = ("copy", "read", "fill")   # each its own family: its label says the kind in the reader's language
TRANSFERS = ("h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable")   # each its own family, as MEMORY_OPS
COLLECTIVE_OPS = r"(?P<op>all_reduce|all_gather|reduce_scatter|broadcast)"


@dataclass
class MicrobenchResult(Record):
    HEADLINE: ClassVar[str] = "gemm_best_tflops"
    TABLE: ClassVar[tuple[str, ...]] = ("gemm_best_tflops", "gemm_best_dtype", "memory_copy", "memory_copy_of_rated",
        "h2d_pinned", "pcie_link", "launch_eager_host_us", "burn", "rated_as")
    LINE: ClassVar[tuple[str, ...]] = ("burn",)
    REPORT_TABLE: ClassVar[str | None] = "workloads.microbench.table:report_table"
    FAMILIES: ClassVar[tuple[Family, ...]] = (
        Family(f"gemm_{FLOAT_DTYPES}", "workload.microbench.metric.gemm_tflops", "TFLOP/s"),
        Family(f"gemm_{INT_DTYPES}", "workload.microbench.metric.gemm_tops", "TOPS"),
        # a rated figure is a data sheet's number, not a measured rate (compare never reads it as one)
        Family(f"gemm_{FLOAT_DTYPES}_rated", "workload.microbench.metric.gemm_rated_tflops", "TFLOP/s", "number"),
        Family(f"gemm_{INT_DTYPES}_rated", "workload.microbench.metric.gemm_rated_tops", "TOPS", "number"),
        Family(f"gemm_{ANY_DTYPE}_of_rated", "workload.microbench.metric.gemm_of_rated", FRACTION),
        # memory_copy_of_rated is a field (the report's table has it); these are the other kinds beside it
        *(Family(f"memory_{op}_rated", f"workload.microbench.metric.memory_{op}_rated", "GB/s", "number")
          for op in MEMORY_OPS),
        *(Family(f"memory_{op}_of_rated", f"workload.microbench.metric.memory_{op}_of_rated", FRACTION)
          for op in MEMORY_OPS[1:]),
        *(Family(f"{t}_rated", f"workload.microbench.metric.{t}_rated", "GB/s", "number") for t in TRANSFERS),
        *(Family(f"{t}_of_rated", f"workload.microbench.metric.{t}_of_rated", FRACTION) for t in TRANSFERS),
        Family(f"collective_{COLLECTIVE_OPS}", "workload.microbench.metric.collective", "GB/s"),
        # the report table's rows, nested: a family of one, since a field named so would hide Record.figures()
        Family("figures", "workload.microbench.metric.figures", NESTED),
    )

    gemm_best_tflops: float | None = figure("workload.microbench.metric.gemm_best_tflops", "TFLOP/s")
    gemm_best_dtype: str | None = figure("workload.microbench.metric.gemm_best_dtype", TEXT)
    memory_copy: float | None = figure("workload.microbench.metric.memory_copy", "GB/s")
    memory_copy_of_rated: float | None = figure("workload.microbench.metric.memory_copy_of_rated", FRACTION)
    h2d_pinned: float | None = figure("workload.microbench.metric.h2d_pinned", "GB/s")
    pcie_link: str | None = figure("workload.microbench.metric.pcie_link", TEXT)
    launch_eager_host_us: float | None = figure("workload.microbench.metric.launch_eager_host_us", "us")
    burn: str | None = figure("workload.microbench.metric.burn", TEXT, short="workload.microbench.line.burn")
    rated_as: str | None = figure("workload.microbench.metric.rated_as", TEXT)
    # the other parts' figures (GEMM's and the collectives' are the families above)
    memory_read: float | None = figure("workload.microbench.metric.memory_read", "GB/s")
    memory_fill: float | None = figure("workload.microbench.metric.memory_fill", "GB/s")
    d2h_pinned: float | None = figure("workload.microbench.metric.d2h_pinned", "GB/s")
    h2d_pageable: float | None = figure("workload.microbench.metric.h2d_pageable", "GB/s")
    d2h_pageable: float | None = figure("workload.microbench.metric.d2h_pageable", "GB/s")
    launch_eager_device_us: float | None = figure("workload.microbench.metric.launch_eager_device_us", "us")
    launch_roundtrip_us: float | None = figure("workload.microbench.metric.launch_roundtrip_us", "us")
    launch_graph_host_us: float | None = figure("workload.microbench.metric.launch_graph_host_us", "us")
    launch_graph_device_us: float | None = figure("workload.microbench.metric.launch_graph_device_us", "us")
    # what the run was: the device, the GEMM dtypes that ran, why nothing is rated
    device_name: str | None = figure("workload.microbench.metric.device_name", TEXT)
    precision: str | None = figure("workload.shared.metric.precision", TEXT)
    rated_note: str | None = figure("workload.microbench.metric.rated_note", TEXT)
    # nested, kept whole in events.jsonl (as are the rows of the report's table, "figures", a family above)
    parts: dict[str, Any] | None = figure("workload.microbench.metric.parts", NESTED)
