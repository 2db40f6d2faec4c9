"""Device selection, synchronisation, memory, autocast, process groups and graph capture per torch device type.

Imported only inside workload children (it imports torch). What each type calls is the row of the one table,
:mod:`workloads.child.device_types`: this module makes the calls it names, on ``torch.accelerator`` where the
installed PyTorch has the function and the type is its accelerator (2.14 has them all), else on the type's
device module (``torch.cuda``, ``torch.npu`` once torch_npu registered it...). A vendor extension is imported when
its type is asked for (or for 'auto', when installed); one that fails says which and why in one line.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

import psutil
import torch

from workloads.catalogue import say
from workloads.child import device_types as table
from workloads.child.harness import WorkloadError, log

# the device module's functions torch.accelerator has with the same meaning, by its name for them (it spells
# mem_get_info get_memory_info; its get_device_capability is another thing, a dict of dtypes, so it is not here)
_ACCELERATOR_NAMES = {"synchronize": "synchronize", "memory_allocated": "memory_allocated",
                      "memory_reserved": "memory_reserved", "max_memory_allocated": "max_memory_allocated",
                      "max_memory_reserved": "max_memory_reserved", "reset_peak_memory_stats": "reset_peak_memory_stats",
                      "mem_get_info": "get_memory_info", "empty_cache": "empty_cache"}


def _module(device_type: str) -> Any | None:
    return table.device_module(torch, device_type)


def _accelerator(device_type: str) -> Any | None:
    """``torch.accelerator`` where the installed torch has it and ``device_type`` is its accelerator, else None."""
    accelerator = getattr(torch, "accelerator", None)
    current = getattr(accelerator, "current_accelerator", None)
    if current is None:
        return None
    try:
        try:
            found = current(check_available=False)   # never initialises the device
        except TypeError:                            # torch 2.6/2.7: no such argument
            found = current()
    except Exception:  # noqa: BLE001 - no accelerator to speak of: the device module answers
        return None
    return accelerator if found is not None and found.type == device_type else None


def function(device: Any, which: str) -> Callable[..., Any] | None:
    """The function the row of ``device``'s type names for ``which`` (a :class:`~workloads.child.device_types.DeviceType`
    field: 'synchronize', 'peak_allocated'...), or None where the type or the installed torch has none."""
    kind = device if isinstance(device, str) else device.type
    name = getattr(table.row(kind), which)
    if name is None:
        return None
    accelerator = _accelerator(kind) if name in _ACCELERATOR_NAMES else None
    found = getattr(accelerator, _ACCELERATOR_NAMES[name], None) if accelerator is not None else None
    return found if found is not None else getattr(_module(kind), name, None)


@functools.cache
def _load_installed_extensions() -> None:
    """For 'auto': import each installed extension whose type torch lacks, once; one that fails is said and skipped."""
    for found in table.installed_extensions():
        if table.needs_extension(torch, found):
            try:
                table.import_extension(found)
            except table.ExtensionFailed as exc:
                log(f"{exc.message} ({found.name} left out)")


def load(device_type: str) -> table.DeviceType:
    """The row of ``device_type``, its extension imported where torch lacks the type's module (WorkloadError,
    exit 2, for an unknown type or an extension that is absent or fails)."""
    found = table.row(device_type)
    if table.needs_extension(torch, found):
        table.import_extension(found)
    return found


def is_available(device_type: str) -> bool:
    module = _module(device_type)
    try:
        return module is not None and bool(module.is_available())
    except Exception:  # noqa: BLE001 - a broken backend is simply absent
        return False


def device_count(device_type: str) -> int:
    """How many devices of the type there are; 0 where it is absent or broken."""
    if not is_available(device_type):
        return 0
    try:
        return int(_module(device_type).device_count())
    except Exception:  # noqa: BLE001
        return 0


def available_types() -> list[str]:
    """Device types that are present, in the table's order, 'cpu' always last."""
    _load_installed_extensions()
    return [name for name in table.ACCELERATORS if is_available(name)] + ["cpu"]


def resolve(name: str | None) -> torch.device:
    """Turn ``--device`` into a torch.device; 'auto'/None picks the first accelerator."""
    if name in (None, "", "auto"):
        return torch.device(available_types()[0])
    load(str(name))
    try:
        device = torch.device(name)
    except RuntimeError:   # a known type, a bad index ('cuda:x')
        raise WorkloadError(f"unknown device {name!r}",
                            hint=f"use one of: {', '.join(available_types())} (optionally with :N)") from None
    if device.type == "cpu":
        return device
    if not is_available(device.type):
        raise WorkloadError(f"device {name!r} is not available on this machine",
                            hint=f"available: {', '.join(available_types())}; run `cardbench doctor`")
    count = device_count(device.type)
    if device.index is not None and device.index >= count:
        raise WorkloadError(f"device {name!r} does not exist ({count} {device.type} device(s))",
                            hint="device indices start at 0")
    return device


def synchronize(device: torch.device) -> None:
    """Wait for queued work, so a clock read after it measures the device."""
    call = function(device, "synchronize")
    if call is not None:
        call(device)


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
    reset = function(device, "reset_peak")
    if reset is None:
        return False
    reset(device)
    return True


def peak_memory(device: torch.device) -> tuple[int | None, int | None]:
    """(peak allocated, peak reserved) bytes; on the CPU the process's peak RSS (VmHWM, since the last
    :func:`reset_peak_memory` where it could reset; ru_maxrss where there is no /proc) and no reserved figure; on a
    type with no peak (mps) None: the process's RSS is not the device's memory."""
    if device.type != "cpu":
        allocated, reserved = function(device, "peak_allocated"), function(device, "peak_reserved")
        return (int(allocated(device)) if allocated is not None else None,
                int(reserved(device)) if reserved is not None else None)
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
        allocated = function(device, "allocated")
        return int(allocated(device)) if allocated is not None else None
    except Exception:  # noqa: BLE001 - no figure: the growth is N/A, the peak is still said
        return None


def free_bytes(device: torch.device) -> int | None:
    """Memory free on ``device`` now (the host's available RAM for the CPU); None where it cannot be told."""
    try:
        if device.type == "cpu":
            return int(psutil.virtual_memory().available)
        info = function(device, "free")
        return int(info(device)[0]) if info is not None else None
    except Exception:  # noqa: BLE001 - no figure, no check: the allocator still has its say
        return None


def empty_cache(device: torch.device) -> None:
    """Give the allocator's cached blocks back, so the next part does not find an earlier one's held."""
    release = function(device, "empty_cache")
    if release is not None:
        release()


def set_device(device: torch.device) -> None:
    """Make ``device`` the current one of its type (a rank's own card; events and graphs use its stream)."""
    module = _module(device.type)
    if device.type != "cpu" and module is not None and hasattr(module, "set_device"):
        module.set_device(device)


def properties(device: torch.device) -> Any | None:
    """The type's device properties (total_memory, L2_cache_size, PCI ids where it has them), or None."""
    read = function(device, "properties")
    try:
        return read(device) if read is not None else None
    except Exception:  # noqa: BLE001 - a compatibility layer may not give them
        return None


def capability(device: torch.device) -> tuple[int, int] | None:
    """(major, minor) compute capability where the type counts one (cuda), else None."""
    read = function(device, "capability")
    if read is None:
        return None
    major, minor = read(device)
    return int(major), int(minor)


def has_tf32(device: torch.device) -> bool:
    """Whether fp32 products may run as TF32 here: the row's capability and the device's at least it."""
    since = table.row(device.type).tf32_from
    found = capability(device) if since is not None else None
    return found is not None and found >= since


def name(device: torch.device) -> str:
    module = _module(device.type)
    if device.type != "cpu" and module is not None and hasattr(module, "get_device_name"):
        try:
            return f"{device} ({module.get_device_name(device)})"
        except Exception:  # noqa: BLE001
            pass
    if device.type == "cpu":
        return f"cpu ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
    return str(device)


def model_name(device: torch.device) -> str | None:
    """The device's model as its driver names it ("NVIDIA H200"), or None where the type or driver does not say."""
    module = _module(device.type)
    try:
        return str(module.get_device_name(device)) if device.type != "cpu" and module is not None else None
    except Exception:  # noqa: BLE001 - a layer that cannot name it
        return None


def autocast_dtype(precision: str) -> torch.dtype | None:
    return {"off": None, "fp32": None, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]


def autocast_type(device: torch.device) -> str:
    """torch.autocast's device_type for ``device``."""
    return table.row(device.type).autocast


def autocast_dtypes(device: torch.device) -> tuple[torch.dtype, ...]:
    """The dtypes autocast takes on ``device``: the device module's ``get_amp_supported_dtype()`` where it has one
    (torch.autocast reads the same for a vendor's type), else the row's; bfloat16 left out where the row's check
    says this device has none (cuda before Ampere)."""
    found = table.row(device.type)
    listed = getattr(_module(device.type), "get_amp_supported_dtype", None)
    dtypes = tuple(listed()) if listed is not None else tuple(getattr(torch, d) for d in found.autocast_dtypes)
    check = getattr(_module(device.type), found.bf16_check, None) if found.bf16_check else None
    if check is not None and not check():
        dtypes = tuple(d for d in dtypes if d != torch.bfloat16)
    return dtypes


def autocast_refusal(device: torch.device, dtype: torch.dtype | None) -> str | None:
    """Why autocast in ``dtype`` cannot run on ``device`` (torch.autocast would warn and quietly run fp32), or None."""
    if dtype is None:
        return None
    supported = autocast_dtypes(device)
    if dtype in supported:
        return None
    return say("workload.device.autocast_unsupported", device=device.type, dtype=str(dtype).replace("torch.", ""),
               dtypes=", ".join(str(d).replace("torch.", "") for d in supported))


def backend(device: torch.device) -> str:
    """torch.distributed's process group for ``device``'s type (nccl, hccl, cncl, mccl, xccl, gloo)."""
    return table.row(device.type).backend


def timing_events(device: torch.device) -> tuple[Any, Any] | None:
    """(start, end) events timed on the device's own clock, where the row says the type has them; else None."""
    module = _module(device.type)
    if not table.row(device.type).events or module is None or not hasattr(module, "Event"):
        return None
    return module.Event(enable_timing=True), module.Event(enable_timing=True)


def can_capture(device: torch.device) -> bool:
    """Whether the type captures graphs (its row names the class) and the installed module has the class."""
    graph = table.row(device.type).graph
    module = _module(device.type)
    return graph is not None and module is not None and hasattr(module, graph) and hasattr(module, "graph")


def capture_graph(device: torch.device, body: Callable[[], Any], warmups: int = 3) -> tuple[Any, Any]:
    """(graph, what ``body`` returned while captured): ``body`` run ``warmups`` times on a side stream first, as
    capture requires (CUDA's rule, which NPUGraph, MLUGraph and MUSAGraph keep), then captured once. Replay with
    ``graph.replay()``. Raises where the type has no capture (:func:`can_capture`) or capture fails."""
    if not can_capture(device):
        raise RuntimeError(f"{device.type} has no graph capture")
    module = _module(device.type)
    side = module.Stream(device)
    side.wait_stream(module.current_stream(device))
    with module.stream(side):
        for _ in range(warmups):
            body()
    module.current_stream(device).wait_stream(side)
    graph = getattr(module, table.row(device.type).graph)()
    with module.graph(graph):
        captured = body()
    return graph, captured


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
