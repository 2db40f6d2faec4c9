"""Known device failure texts and what the user should do about them.

Shared by the workloads (error events), the runner (a crash whose stderr names
a device error) and the doctor. Patterns are matched case-insensitively against
the error text; the first match wins, so specific patterns come first. A pattern
leads to a piece of advice by id: its words, English and Chinese, are the
catalogue's ``hint.<id>`` (`workloads.catalogue.hints`).
"""

from __future__ import annotations

import re

from workloads.catalogue import Message

# failure text -> the id of its advice; the first match wins, so specific patterns come first
RULES: list[tuple[str, str]] = [
    (r"device kernel image is invalid|no kernel image is available", "device_code_missing"),
    (r"not implemented for '?(Half|BFloat16|Float8)", "dtype_op_missing"),
    (r"not implemented for", "op_missing"),
    (r"Expected more than 1 value per channel when training", "batch_norm"),
    # the domestic stacks' failures, before the generic out-of-memory and the generic Ascend code below them
    (r"hccl(?: \w+)? task timeout", "hccl_exec_timeout"),
    (r"\bEI0006\b|Getting socket times out|wait socket establish timeout", "hccl_connect_timeout"),
    (r"\bEJ0001\b|Failed to initialize the HCCP process", "npu_held"),
    (r"NPU out of memory|\bEL0004\b", "npu_out_of_memory"),
    (r"not in libopapi|\bERR01004\b", "cann_torch_npu_mismatch"),
    (r"Guilty Lockup|MUSA error: unknown error", "musa_gpu_hang"),
    (r"\[cnrtError\]|\[MLUOP\] \[Error\]", "mlu_runtime"),
    (r"\bEZ\d{4}\b", "ascend_op_error"),
    (r"out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED", "out_of_memory"),
    (r"Found no NVIDIA driver|NVIDIA driver on your system is too old|CUDA driver version is insufficient",
     "driver_mismatch"),
    (r"Torch not compiled with CUDA enabled", "cpu_only_build"),
    (r"CUDA error: an illegal memory access|illegal instruction|unspecified launch failure", "device_fault"),
    (r"NCCL (error|WARN)|ProcessGroupNCCL", "collective"),
    (r"No module named 'torch'", "no_torch"),
    (r"No module named 'torchvision'", "no_torchvision"),
    # environment failures the doctor maps (added by the telemetry/doctor issue)
    (r"management CLI lists GPUs but torch sees none|no CUDA GPUs are available", "driver_mismatch"),
    (r"no CUDA-capable device is detected|(CUDA|HIP|ROCR|NVIDIA)_VISIBLE_DEVICES hides every device",
     "no_visible_device"),
    (r"Driver/library version mismatch|NVMLError_LibRmVersionMismatch", "driver_library_mismatch"),
    (r"NVML Shared Library Not Found|NVMLError_LibraryNotFound|libnvidia-ml", "no_nvml"),
    (r"NVMLError_DriverNotLoaded|NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
     "driver_not_loaded"),
    (r"GPU is lost|NVMLError_GpuIsLost|fallen off the bus", "gpu_lost"),
    (r"did not answer within|timed out", "tool_hangs"),
    (r"undefined symbol|was compiled against|version mismatch between torch", "extension_mismatch"),
    (r"No space left on device", "disk_full"),
    (r"invalid device function|hipErrorNoBinaryForGpu", "arch_missing"),
    (r"\bE[EHIJL]\d{4}\b|\bERR\d{5}\b|rtDeviceSynchronize|NPU error", "ascend_runtime"),
    (r"CUDA error|HIP error|MUSA error|device-side assert", "device_error"),
]

_COMPILED = [(re.compile(pattern, re.IGNORECASE), advice) for pattern, advice in RULES]

# stderr lines that name a device fault, for the runner's crash report
DEVICE_ERROR = re.compile(
    r"(CUDA error|HIP error|MUSA error|out of memory|kernel image|not implemented for|"
    r"RuntimeError|OutOfMemoryError|device-side assert|Segmentation fault|Xid)",
    re.IGNORECASE,
)


# the lines with which a device runtime says it failed (CUDA, HIP, Ascend CANN, MUSA, Cambricon and the
# compatibility layers). A job's output is searched for the first: PyTorch prints three lines of advice after
# each error, and torchrun its own traceback after those, so the last lines alone never name it
DEVICE_FAULT = re.compile(
    r"(?:CUDA|HIP|MUSA|MACA|XPU|NPU|CNRT|ACL) error\b|CUBLAS_STATUS_[A-Z_]+|CUDNN_STATUS_[A-Z_]+|hipError\w+"
    r"|\bE[EHIJLZ]\d{4}\b|rtDeviceSynchronize|aclrt\w+ failed|cnrt\w+ failed|\[cnrtError\]|\[MLUOP\] \[Error\]"
    r"|NPU out of memory|not in libopapi|wait socket establish timeout|Guilty Lockup"
    r"|device kernel image is invalid|no kernel image is available|invalid device function"
    r"|device-side assert triggered|an illegal memory access|unspecified launch failure",
    re.IGNORECASE,
)


# how many lines after a fault line may name its cause (a CANN error's header, then its cause, then its stack)
FAULT_CONTEXT = 20


def first_device_fault(lines) -> str | None:
    """The first line of ``lines`` in which a device runtime says it failed, stripped; None when none does."""
    return next((line.strip() for line in lines if DEVICE_FAULT.search(line)), None)


def fault_hint(lines) -> Message | None:
    """The hint for the first device fault in ``lines`` read with the lines after it (`FAULT_CONTEXT`): CANN prints
    "EI9999: Inner Error!" before the line that names the cause ("hccl ... task timeout"); None when none fails."""
    lines = list(lines)
    at = next((i for i, line in enumerate(lines) if DEVICE_FAULT.search(line)), None)
    return None if at is None else hint_for("\n".join(lines[at:at + FAULT_CONTEXT]))


def hint_for(text: str) -> Message | None:
    """The hint for a known failure text (its catalogue id, ``hint.<advice>``, said in a language when shown), or
    None."""
    for pattern, advice in _COMPILED:
        if pattern.search(text or ""):
            return Message(f"hint.{advice}")
    return None
