"""Known device failure texts and what the user should do about them.

Shared by the workloads (error events), the runner (a crash whose stderr names
a device error) and the doctor. Patterns are matched case-insensitively against
the error text; the first match wins, so specific patterns come first.
"""

from __future__ import annotations

import re

HINTS: list[tuple[str, str]] = [
    (r"device kernel image is invalid|no kernel image is available",
     "the PyTorch build lacks code for this device, or an op is missing under mixed precision: "
     "run with --amp off and let the ResNet-50 workload name the layer"),
    (r"not implemented for '?(Half|BFloat16|Float8)",
     "an op is missing for that dtype on this device: use --amp off (or --dtype fp32)"),
    (r"not implemented for",
     "an op is missing for this dtype or device: try another --dtype/--amp, or --device cpu to compare"),
    (r"Expected more than 1 value per channel when training",
     "batch norm needs two or more images per step: raise --batch-size"),
    (r"out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED",
     "the device ran out of memory: lower --batch-size (or use --find-batch-size)"),
    (r"Found no NVIDIA driver|NVIDIA driver on your system is too old|CUDA driver version is insufficient",
     "this PyTorch does not match the driver: was it reinstalled over the image's build? use the image's PyTorch"),
    (r"Torch not compiled with CUDA enabled",
     "this PyTorch is a CPU-only build: reinstall the image's (vendor) PyTorch, not the one from PyPI"),
    (r"CUDA error: an illegal memory access|illegal instruction|unspecified launch failure",
     "the device faulted: check `dmesg` for Xid errors and rerun; if it repeats, report it to the platform"),
    (r"NCCL (error|WARN)|ProcessGroupNCCL",
     "a collective failed: check NCCL_* variables and that every GPU is visible (CUDA_VISIBLE_DEVICES)"),
    (r"No module named 'torch'",
     "PyTorch is not installed in this Python: use the image's PyTorch, or pip install 'cardbench[torch]'"),
    (r"No module named 'torchvision'",
     "torchvision is missing: pip install the torchvision that matches this PyTorch"),
    # environment failures the doctor maps (added by the telemetry/doctor issue)
    (r"management CLI lists GPUs but torch sees none|no CUDA GPUs are available",
     "this PyTorch does not match the driver: was it reinstalled over the image's build? use the image's PyTorch"),
    (r"no CUDA-capable device is detected|(CUDA|HIP|ROCR|NVIDIA)_VISIBLE_DEVICES hides every device",
     "no device is visible to this process: check CUDA_VISIBLE_DEVICES (and HIP_/ROCR_VISIBLE_DEVICES); unset it to see all"),
    (r"Driver/library version mismatch|NVMLError_LibRmVersionMismatch",
     "the kernel driver and its user-space library differ (driver updated without a reboot): reboot, or reload the driver"),
    (r"NVML Shared Library Not Found|NVMLError_LibraryNotFound|libnvidia-ml",
     "libnvidia-ml.so is missing: the driver's user-space part is not in this image (expected on non-NVIDIA cards)"),
    (r"NVMLError_DriverNotLoaded|NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
     "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia` and `dmesg`, or ask the platform"),
    (r"GPU is lost|NVMLError_GpuIsLost|fallen off the bus",
     "the GPU fell off the bus: the instance needs a reset or a replacement; report it to the platform"),
    (r"did not answer within|timed out",
     "the tool hangs: the driver may be wedged (check `dmesg` for Xid errors); a reboot often clears it"),
    (r"undefined symbol|was compiled against|version mismatch between torch",
     "the vendor torch extension does not match this torch build: reinstall the pair from the image"),
    (r"No space left on device",
     "the disk is full: free space, or point the run directory at a larger volume"),
    (r"invalid device function|hipErrorNoBinaryForGpu",
     "the PyTorch build has no code for this GPU's architecture: use the build made for it (ROCm: its gfx "
     "target), the image's PyTorch, or run with --amp off to see whether one op is to blame"),
    (r"\bE[EHZ]\d{4}\b|rtDeviceSynchronize|NPU error",
     "the Ascend runtime failed (the CANN code above): `npu-smi info` shows the card's state and the plog under "
     "~/ascend/log the cause; a task timeout is often a hung collective or an op the NPU lacks"),
    (r"CUDA error|HIP error|MUSA error|device-side assert",
     "a device error: rerun with CUDA_LAUNCH_BLOCKING=1 to locate it, and run `cardbench doctor`"),
]

_COMPILED = [(re.compile(pattern, re.IGNORECASE), hint) for pattern, hint in HINTS]

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
    r"|\bE[EHZ]\d{4}\b|rtDeviceSynchronize|aclrt\w+ failed|cnrt\w+ failed"
    r"|device kernel image is invalid|no kernel image is available|invalid device function"
    r"|device-side assert triggered|an illegal memory access|unspecified launch failure",
    re.IGNORECASE,
)


def first_device_fault(lines) -> str | None:
    """The first line of ``lines`` in which a device runtime says it failed, stripped; None when none does."""
    return next((line.strip() for line in lines if DEVICE_FAULT.search(line)), None)


def hint_for(text: str) -> str | None:
    """The hint for a known failure text, or None."""
    for pattern, hint in _COMPILED:
        if pattern.search(text or ""):
            return hint
    return None
