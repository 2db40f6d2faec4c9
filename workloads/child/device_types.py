"""The one table of torch device types: what each needs imported, how it autocasts, synchronises, counts memory,
joins a process group and captures a graph.

A row names functions of the type's device module (``torch.cuda``, ``torch.npu``...) as strings, so this module is
torch-free (the doctor's probe reads it before it knows whether torch imports) and no module spells ``torch.cuda``:
:mod:`workloads.child.device` makes every call a row names, preferring ``torch.accelerator`` where the installed
PyTorch has the function and the type is its accelerator. ``tests/test_imports.py`` fails on a ``torch.cuda``
anywhere in the tree and on a device module reached by name outside this module.

Where each vendor's name comes from (their own code, not a guess):

- npu, torch_npu (Ascend/pytorch): ``torch.npu`` mirrors ``torch.cuda`` (synchronize, memory_allocated,
  max_memory_allocated, reset_peak_memory_stats, mem_get_info, Event, Stream); graphs ``torch.npu.NPUGraph`` with
  ``torch.npu.graph(g)`` (torch_npu/csrc/core/npu/NPUGraph.cpp); process group "hccl"; autocast dtypes from
  ``torch.npu.get_amp_supported_dtype()``, which ``torch.autocast`` itself reads for a privateuse1 backend.
- mlu, torch_mlu (Cambricon/torch_mlu): ``torch.mlu`` the same shape; ``torch.mlu.MLUGraph`` / ``torch.mlu.graph``
  (torch_mlu/csrc/framework/graphs/MLUGraph.h, its graph tests); process group "cncl"
  (torch_mlu/csrc/framework/distributed/process_group_cncl.cpp).
- musa, torch_musa (MooreThreads/torch_musa): ``torch.musa`` the same shape; ``torch.musa.MUSAGraph`` /
  ``torch.musa.graph`` (torch_musa/csrc/aten/musa/MUSAGraph.h); process group "mccl" (ProcessGroupMCCL.cpp);
  ``get_amp_supported_dtype()`` -> float16, bfloat16, float32 (torch_musa/core/amp/common.py).
- xpu: in PyTorch itself since 2.4 (``torch.xpu``, ``torch.xpu.XPUGraph`` in 2.14); intel_extension_for_pytorch
  only on an older torch that has no ``torch.xpu``; process group "xccl" (PyTorch's
  ``Backend.default_device_backend_map`` says so from 2.7).
- hpu: ``habana_frameworks.torch.core`` registers ``torch.hpu`` (``torch._register_device_module("hpu", hpu)`` in
  its __init__); process group "hccl" (habana_frameworks.torch.distributed.hccl); its HPU graphs run in lazy mode,
  another shape: no capture here.
- mps: ``torch.mps`` has synchronize, current_allocated_memory and driver_allocated_memory but no peak and no reset;
  process group "gloo" (the default map's); no graphs.
- cpu: nothing to import; autocast "cpu" in bfloat16 and float16; "gloo"; the peak memory is the process's
  (workloads.child.device reads /proc).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

from workloads.catalogue import message, say
from workloads.errors import WorkloadError, first_line


@dataclass(frozen=True)
class DeviceType:
    """One torch device type. A function name of None: the type has no such function, its figure is N/A."""

    name: str                               # torch's device type, as ``--device`` takes it
    extension: str | None                   # imported first where torch has no ``torch.<name>`` of its own
    backend: str                            # torch.distributed's process group for it
    autocast_dtypes: tuple[str, ...]        # what autocast takes here (``get_amp_supported_dtype()`` wins at run time)
    graph: str | None = None                # the graph class on the device module; captured under ``module.graph``
    events: bool = False                    # ``module.Event(enable_timing=True)``: the device's own clock
    synchronize: str | None = "synchronize"
    allocated: str | None = "memory_allocated"
    reserved: str | None = "memory_reserved"
    peak_allocated: str | None = "max_memory_allocated"
    peak_reserved: str | None = "max_memory_reserved"
    reset_peak: str | None = "reset_peak_memory_stats"
    free: str | None = "mem_get_info"       # (free, total) bytes
    empty_cache: str | None = "empty_cache"
    properties: str | None = "get_device_properties"   # total_memory, L2_cache_size, PCI ids where the type has them
    capability: str | None = None           # (major, minor) as NVIDIA counts it
    tf32_from: tuple[int, int] | None = None  # the capability from which TF32 products run
    bf16_check: str | None = None           # where bfloat16 autocast depends on the device: the function that says

    @property
    def autocast(self) -> str:
        """torch.autocast's device_type: the type's own name for every type torch knows."""
        return self.name


_SIXTEEN = ("float16", "bfloat16")

TABLE: tuple[DeviceType, ...] = (
    DeviceType("cuda", None, "nccl", _SIXTEEN, graph="CUDAGraph", events=True, capability="get_device_capability",
               tf32_from=(8, 0), bf16_check="is_bf16_supported"),
    DeviceType("npu", "torch_npu", "hccl", _SIXTEEN, graph="NPUGraph", events=True),
    DeviceType("mlu", "torch_mlu", "cncl", _SIXTEEN, graph="MLUGraph", events=True),
    DeviceType("musa", "torch_musa", "mccl", _SIXTEEN, graph="MUSAGraph", events=True),
    DeviceType("xpu", "intel_extension_for_pytorch", "xccl", _SIXTEEN, graph="XPUGraph", events=True),
    DeviceType("hpu", "habana_frameworks.torch.core", "hccl", _SIXTEEN),
    DeviceType("mps", None, "gloo", _SIXTEEN, allocated="current_allocated_memory",
               reserved="driver_allocated_memory", peak_allocated=None, peak_reserved=None, reset_peak=None, free=None,
               properties=None),
    DeviceType("cpu", None, "gloo", ("bfloat16", "float16"), synchronize=None, allocated=None, reserved=None,
               peak_allocated=None, peak_reserved=None, reset_peak=None, free=None, empty_cache=None,
               properties=None),
)
BY_NAME = {t.name: t for t in TABLE}
KNOWN = tuple(BY_NAME)
ACCELERATORS = tuple(n for n in KNOWN if n != "cpu")   # 'auto' tries them in this order


class UnknownDeviceType(WorkloadError):
    pass


class ExtensionFailed(WorkloadError):
    """An extension absent or failing to import: the one line, and its ``reason`` alone (what the doctor lists)."""

    def __init__(self, message: str, hint: Any, reason: str):
        super().__init__(message, hint=hint)
        self.reason = reason


def row(name: str) -> DeviceType:
    """The row of device type ``name`` ('npu', or 'npu:1': the index is not the type's business)."""
    found = BY_NAME.get(name.split(":")[0].strip().lower())
    if found is None:
        raise UnknownDeviceType(say("workload.device.unknown_type", name=repr(name), known=", ".join(KNOWN)),
                                hint=message("workload.device.unknown_type_hint"))
    return found


def device_module(torch: Any, name: str) -> Any | None:
    """``torch.<name>`` where it is a device module (it has ``is_available``), else None. ``torch`` is passed in:
    this module never imports it."""
    module = getattr(torch, name, None)
    return module if module is not None and hasattr(module, "is_available") else None


def needs_extension(torch: Any, found: DeviceType) -> bool:
    """Whether ``found``'s extension must be imported: it has one and torch has no device module of that name."""
    return found.extension is not None and device_module(torch, found.name) is None


def import_extension(found: DeviceType) -> None:
    """Import ``found``'s extension; one line saying which and why where it is absent or fails to import."""
    module = found.extension
    assert module is not None
    try:
        # find_spec of 'habana_frameworks.torch.core' imports its parents: their failure is the extension's
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(module)
    except ModuleNotFoundError:
        raise ExtensionFailed(say("workload.device.extension_missing", name=found.name, module=module),
                              hint=message("workload.device.extension_missing_hint", module=module),
                              reason="not installed") from None
    except Exception as exc:  # noqa: BLE001 - a parent that fails to import: the same one line as below
        _failed(found, exc)
    try:
        importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - any failure of a vendor's import is the one line, never a traceback
        _failed(found, exc)


def _failed(found: DeviceType, exc: BaseException) -> None:
    reason = first_line(exc, typed=True, limit=300)
    raise ExtensionFailed(say("workload.device.extension_failed", module=found.extension, reason=reason),
                          hint=message("workload.device.extension_failed_hint", name=found.name),
                          reason=reason) from None


def installed_extensions() -> list[DeviceType]:
    """The rows whose extension is installed here (found, not imported; a parent that fails to import counts as
    installed, so that :func:`import_extension` says why)."""
    found = []
    for t in TABLE:
        if t.extension is None:
            continue
        try:
            if importlib.util.find_spec(t.extension) is not None:
                found.append(t)
        except ModuleNotFoundError:
            continue
        except Exception:  # noqa: BLE001 - installed, but its parent fails: said when it is imported
            found.append(t)
    return found
