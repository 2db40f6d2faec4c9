"""Known device failure texts and what the user should do about them.

Shared by the workloads (error events), the runner (a crash whose stderr names
a device error) and the doctor. Patterns are matched case-insensitively against
the error text; the first match wins, so specific patterns come first.
"""

from __future__ import annotations

import re

# each piece of advice once, by id: `tui.i18n.hints` gives its Chinese under ``hint.<id>`` (a run and a doctor.json
# carry the English, and the report finds the Chinese by it)
ADVICE: dict[str, str] = {
    "device_code_missing": "the PyTorch build lacks code for this device, or an op is missing under mixed precision: "
                           "run with --amp off and let the ResNet-50 workload name the layer",
    "dtype_op_missing": "an op is missing for that dtype on this device: use --amp off (or --dtype fp32)",
    "op_missing": "an op is missing for this dtype or device: try another --dtype/--amp, or --device cpu to compare",
    "batch_norm": "batch norm needs two or more images per step: raise --batch-size",
    "out_of_memory": "the device ran out of memory: lower --batch-size (or use --find-batch-size)",
    "driver_mismatch": "this PyTorch does not match the driver: was it reinstalled over the image's build? use the "
                       "image's PyTorch",
    "cpu_only_build": "this PyTorch is a CPU-only build: reinstall the image's (vendor) PyTorch, not the one from PyPI",
    "device_fault": "the device faulted: check `dmesg` for Xid errors and rerun; if it repeats, report it to the "
                    "platform",
    "collective": "a collective failed: check NCCL_* variables and that every GPU is visible (CUDA_VISIBLE_DEVICES)",
    "no_torch": "PyTorch is not installed in this Python: use the image's PyTorch, or pip install 'cardbench[torch]'",
    "no_torchvision": "torchvision is missing: pip install the torchvision that matches this PyTorch",
    "no_visible_device": "no device is visible to this process: check CUDA_VISIBLE_DEVICES (and "
                         "HIP_/ROCR_VISIBLE_DEVICES); unset it to see all",
    "driver_library_mismatch": "the kernel driver and its user-space library differ (driver updated without a "
                               "reboot): reboot, or reload the driver",
    "no_nvml": "libnvidia-ml.so is missing: the driver's user-space part is not in this image (expected on non-NVIDIA "
               "cards)",
    "driver_not_loaded": "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia` and `dmesg`, or ask the "
                         "platform",
    "gpu_lost": "the GPU fell off the bus: the instance needs a reset or a replacement; report it to the platform",
    "tool_hangs": "the tool hangs: the driver may be wedged (check `dmesg` for Xid errors); a reboot often clears it",
    "extension_mismatch": "the vendor torch extension does not match this torch build: reinstall the pair from the "
                          "image",
    "disk_full": "the disk is full: free space, or point the run directory at a larger volume",
    "arch_missing": "the PyTorch build has no code for this GPU's architecture: use the build made for it (ROCm: its "
                    "gfx target, which `rocminfo | grep gfx` names; a Hygon DCU: the DTK build of PyTorch, not a "
                    "pytorch.org ROCm wheel), the image's PyTorch, or run with --amp off to see whether one op is to "
                    "blame",
    # the domestic accelerator stacks' own failures (CANN / torch_npu, HCCL, torch_musa, Cambricon)
    "hccl_exec_timeout": "a collective waited past HCCL_EXEC_TIMEOUT (1836 s by default): one rank stopped reaching "
                         "it, so find the rank whose log fails first (or that was still saving or evaluating); if "
                         "the wait is expected, raise it on every rank, e.g. `export HCCL_EXEC_TIMEOUT=3600`",
    "hccl_connect_timeout": "the ranks could not connect within HCCL_CONNECT_TIMEOUT (120 s by default): check that "
                            "every rank started and none failed first, that the nodes reach each other "
                            "(`hccn_tool -i <device> -link -g` for an NPU's link) and that no other job holds HCCL's "
                            "ports; if ranks start far apart, raise it on every rank, e.g. "
                            "`export HCCL_CONNECT_TIMEOUT=1200`",
    "npu_held": "an earlier process still holds the NPU (HCCP could not start): `npu-smi info` lists the processes on "
                "each NPU; find the leftover one with `ps -ef | grep python` or `fuser -v /dev/davinci<N>`, kill it, "
                "wait 10 s and rerun",
    "npu_out_of_memory": "the NPU ran out of memory: lower --batch-size (or use --find-batch-size); `npu-smi info` "
                         "shows whether another process holds the card's memory; if reserved is far above allocated, "
                         "set `PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`",
    "cann_torch_npu_mismatch": "CANN and torch_npu do not pair (an aclnn op this torch_npu calls is missing from "
                               "CANN's libopapi.so): read CANN's version in `"
                               "/usr/local/Ascend/ascend-toolkit/latest/*/ascend_toolkit_install.info` and torch_npu's "
                               "with `pip show torch-npu`, then install a pair the Ascend/pytorch README lists (or "
                               "use the image's)",
    "musa_gpu_hang": "the Moore Threads GPU hung and its driver reset the context: `dmesg | grep MTGPU` names the "
                     "process with 'Guilty Lockup', `mthreads-gmi` shows the card's state; rerun, and if it repeats "
                     "at the same step try --amp off, and use the image's torch_musa with the MUSA driver it was "
                     "built for",
    "mlu_runtime": "the Cambricon runtime (CNRT) or an MLU op library failed, in the call named after "
                   "[cnrtError] / [MLUOP]: `cnmon` shows the card's state and driver version; the driver, CNToolkit "
                   "and torch_mlu must be the set made together: use the image's",
    "ascend_op_error": "an NPU operator failed (an EZ code: the lines under it name the op and why): rerun with "
                       "`ASCEND_LAUNCH_BLOCKING=1` to stop at it, try --amp off (or --dtype fp32), and read the plog "
                       "under ~/ascend/log for the full reason",
    "ascend_runtime": "the Ascend runtime failed (the CANN code above): `npu-smi info` shows the card's state and the "
                      "plog under ~/ascend/log the cause; a task timeout is often a hung collective or an op the NPU "
                      "lacks",
    "device_error": "a device error: rerun with CUDA_LAUNCH_BLOCKING=1 to locate it, and run `cardbench doctor`",
}

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

# (pattern, advice), in RULES' order
HINTS: list[tuple[str, str]] = [(pattern, ADVICE[advice]) for pattern, advice in RULES]

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


def fault_hint(lines) -> str | None:
    """The hint for the first device fault in ``lines`` read with the lines after it (`FAULT_CONTEXT`): CANN prints
    "EI9999: Inner Error!" before the line that names the cause ("hccl ... task timeout"); None when none fails."""
    lines = list(lines)
    at = next((i for i, line in enumerate(lines) if DEVICE_FAULT.search(line)), None)
    return None if at is None else hint_for("\n".join(lines[at:at + FAULT_CONTEXT]))


def hint_for(text: str) -> str | None:
    """The hint for a known failure text, or None."""
    for pattern, hint in _COMPILED:
        if pattern.search(text or ""):
            return hint
    return None
