"""What the workbench, the headless suite, the report and the doctor know of the data-IO workload (torch-free)."""

from __future__ import annotations

from typing import Any

from workloads.catalogue import Message
from workloads.dataio.result_record import DataioResult
from workloads.spec import DEVICE_PLACEHOLDER, Param, SuiteArgs, WorkloadSpec

PARTS = ("survey", "storage", "decode", "loader", "verdict")


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
    result=DataioResult,
    short="DataIO",
    params=(
        Param("data", "data folder", "--data", "", placeholder="/path/to/images (read only)"),
        Param("make_data", "or make N JPEGs", "--make-data", "", "int", placeholder="256 when no data folder",
              max=100_000),
        Param("seconds", "seconds per part", "--seconds", "2", "int", max=600),
        Param("max_workers", "most loader workers", "--max-workers", "", "int", placeholder="the cores", max=1024),
        Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
    ),
    suite=SuiteArgs(standard=MADE, quick=MADE, cpu_standard=MADE, cpu_quick=MADE,
                    cpu_standard_note=CPU_NOTE, cpu_quick_note=CPU_NOTE, suites=("standard",)),
    counts="parts",
    progress=Message("workload.shared.progress"),   # a step event is a part done, as microbench's
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=lambda args, config: len(PARTS),
    data_check=data_check,
)
