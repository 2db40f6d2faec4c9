"""The CPU fallback check's figures (`workloads.child.cpu_fallback`), declared once for every workload's result
record that runs it (resnet50, finetune, llm): a mixin, ``class ResNet50Result(CpuFallbackFigures, Record)``.
Torch-free, as records are; `cardbench ready` reads ``cpu_fallback_ops`` and ``host_device_copies_per_step``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads.result_record import BYTES, COUNT, NESTED, figure

_SHARED = "workload.shared.metric."


@dataclass
class CpuFallbackFigures:
    # one row per op that ran on the CPU while the model was on the card: op, calls_per_step, share_of_step (of the
    # watched steps' time, its copies in and out included), ms_per_step, copies_per_step, copy_bytes_per_step
    cpu_fallback_ops: list[dict[str, Any]] | None = figure(_SHARED + "cpu_fallback_ops", NESTED)
    host_device_copies_per_step: float | None = figure(_SHARED + "host_device_copies_per_step", COUNT)
    host_device_copy_bytes_per_step: int | None = figure(_SHARED + "host_device_copy_bytes_per_step", BYTES)
    cpu_fallback_steps_watched: int | None = figure(_SHARED + "cpu_fallback_steps_watched", COUNT)
