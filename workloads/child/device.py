"""Device selection, synchronisation, memory and autocast support per torch device type.

Imported only inside workload children (it imports torch). Device types other
than cuda (a compatibility layer also appears as cuda) are found by name on the
``torch`` module (``torch.xpu``, ``torch.mps``, ``torch.npu``/``torch.musa``/
``torch.mlu`` when a vendor extension registered them), so a new accelerator
works when its torch module follows the ``torch.cuda`` shape.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import torch

from workloads.child.harness import WorkloadError

_TYPES_TO_PROBE = ("cuda", "xpu", "mps", "npu", "musa", "mlu", "hpu")


def _backend(device_type: str) -> Any | None:
    return getattr(torch, device_type, None)


def available_types() -> list[str]:
    """Device types that are present, 'cpu' always last."""
    found = []
    for name in _TYPES_TO_PROBE:
        module = _backend(name)
        try:
            if module is not None and module.is_available():
                found.append(name)
        except Exception:  # noqa: BLE001 - a broken backend is simply absent
            continue
    return found + ["cpu"]


def resolve(name: str | None) -> torch.device:
    """Turn ``--device`` into a torch.device; 'auto'/None picks the first accelerator."""
    if name in (None, "", "auto"):
        return torch.device(available_types()[0])
    try:
        device = torch.device(name)
    except RuntimeError:
        raise WorkloadError(f"unknown device {name!r}",
                            hint=f"use one of: {', '.join(available_types())} (optionally with :N)") from None
    if device.type == "cpu":
        return device
    module = _backend(device.type)
    try:
        present = module is not None and module.is_available()
    except Exception:  # noqa: BLE001
        present = False
    if not present:
        raise WorkloadError(f"device {name!r} is not available on this machine",
                            hint=f"available: {', '.join(available_types())}; run `cardbench doctor`")
    if device.index is not None and hasattr(module, "device_count") and device.index >= module.device_count():
        raise WorkloadError(f"device {name!r} does not exist ({module.device_count()} {device.type} device(s))",
                            hint="device indices start at 0")
    return device


def synchronize(device: torch.device) -> None:
    """Wait for queued work, so a clock read after it measures the device."""
    if device.type == "cpu":
        return
    module = _backend(device.type)
    if module is not None and hasattr(module, "synchronize"):
        module.synchronize(device)


def now(device: torch.device) -> float:
    """A clock read after synchronising the device."""
    synchronize(device)
    return time.perf_counter()


def _vm_hwm() -> int | None:
    """The process's peak RSS in bytes (VmHWM of /proc/self/status), or None where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def reset_peak_memory(device: torch.device) -> bool:
    """Start the peak over from now; False where it cannot be.

    On the CPU: VmHWM set back to the RSS now (Linux 4.0+: '5' to /proc/self/clear_refs, which clears nothing
    else); getrusage's ru_maxrss never resets, and even carries the parent's peak across fork and exec (a child
    of a 1 GB pytest read 1 GB before it built anything).
    """
    if device.type == "cpu":
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            return False
        return _vm_hwm() is not None
    module = _backend(device.type)
    if module is not None and hasattr(module, "reset_peak_memory_stats"):
        module.reset_peak_memory_stats(device)
        return True
    return False


def peak_memory(device: torch.device) -> tuple[int | None, int | None]:
    """(peak allocated, peak reserved) bytes; on the CPU the process's peak RSS (VmHWM, since the last
    :func:`reset_peak_memory` where it could reset; ru_maxrss where there is no /proc) and no reserved figure."""
    module = _backend(device.type)
    if device.type != "cpu" and module is not None and hasattr(module, "max_memory_allocated"):
        reserved = module.max_memory_reserved(device) if hasattr(module, "max_memory_reserved") else None
        return int(module.max_memory_allocated(device)), (int(reserved) if reserved is not None else None)
    hwm = _vm_hwm()
    if hwm is not None:
        return hwm, None
    try:
        import resource

        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
        return int(rss), None
    except Exception:  # noqa: BLE001
        return None, None


def memory_in_use(device: torch.device) -> int | None:
    """Bytes in use now, as :func:`peak_memory` counts them: allocated by torch on a device, the process's RSS on the
    CPU (torch's libraries included). Read before a model is built, it is the base a peak's growth is taken from."""
    try:
        if device.type == "cpu":
            return int(psutil.Process().memory_info().rss)
        module = _backend(device.type)
        allocated = getattr(module, "memory_allocated", None)
        return int(allocated(device)) if allocated is not None else None
    except Exception:  # noqa: BLE001 - no figure: the growth is N/A, the peak is still said
        return None


def free_bytes(device: torch.device) -> int | None:
    """Memory free on ``device`` now (the host's available RAM for the CPU); None where it cannot be told."""
    try:
        if device.type == "cpu":
            return int(psutil.virtual_memory().available)
        info = getattr(_backend(device.type), "mem_get_info", None)
        return int(info(device)[0]) if info is not None else None
    except Exception:  # noqa: BLE001 - no figure, no check: the allocator still has its say
        return None


def name(device: torch.device) -> str:
    module = _backend(device.type)
    if device.type != "cpu" and module is not None and hasattr(module, "get_device_name"):
        try:
            return f"{device} ({module.get_device_name(device)})"
        except Exception:  # noqa: BLE001
            pass
    if device.type == "cpu":
        return f"cpu ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
    return str(device)


def autocast_dtype(precision: str) -> torch.dtype | None:
    return {"off": None, "fp32": None, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]


def versions() -> dict[str, Any]:
    out: dict[str, Any] = {"python": platform.python_version(), "torch": torch.__version__}
    if torch.version.cuda:
        out["cuda"] = torch.version.cuda
    if getattr(torch.version, "hip", None):
        out["hip"] = torch.version.hip
    try:
        if torch.backends.cudnn.is_available():
            out["cudnn"] = torch.backends.cudnn.version()
    except Exception:  # noqa: BLE001
        pass
    vision = _torchvision_version()
    if vision:
        out["torchvision"] = vision
    return out


def _torchvision_version() -> str | None:
    """torchvision's own ``__version__`` ('0.29.1+cu130': the build's CUDA, which the package metadata's '0.29.1'
    leaves out), read from its version.py without importing the package: `import torchvision` loads its models and
    ops and through them torch._dynamo, over a second of every run that trains or decodes nothing from it."""
    loaded = sys.modules.get("torchvision")
    if loaded is not None:
        return getattr(loaded, "__version__", None)
    try:
        spec = importlib.util.find_spec("torchvision")
        if spec is None or not spec.submodule_search_locations:
            return None
        for folder in spec.submodule_search_locations:
            source = Path(folder, "version.py")
            if source.is_file():
                found = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", source.read_text(encoding="utf-8"),
                                  re.MULTILINE)
                if found:
                    return found.group(1)
        return importlib.metadata.version("torchvision")
    except Exception:  # noqa: BLE001 - a version line is never worth a failed run
        return None
