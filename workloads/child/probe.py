"""What torch can tell about the accelerators, printed as one JSON object on the last stdout line.

Run in a short-lived child (`python -m workloads.child.probe [--doctor | --tensorflow]`),
never in the UI process: importing torch costs seconds and a CUDA context would
hold device memory and die with the first device fault.

- default: torch version, what it was built for, device types, per-device name,
  memory, capability and PCI bus id (no CUDA context is created for memory use).
- ``--doctor``: also the CUDA initialisation time, a small kernel checked
  against the CPU, fp16/bf16 autocast on the device, the arch list against the
  device's capability.
- ``--tensorflow``: whether TensorFlow imports and which GPUs it lists (its own
  child, so it never shares a process with torch).

Every check catches its own error and reports the text, so one failure never
hides the others; the exit status is 0 whenever the JSON was printed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from typing import Any

# vendor extensions that register a torch device type when imported
_EXTENSIONS = {"npu": "torch_npu", "musa": "torch_musa", "mlu": "torch_mlu", "xpu": None, "hpu": None}
_TYPES = ("cuda", "xpu", "npu", "musa", "mlu", "hpu", "mps")


def _err(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


def _emit(out: Any, payload: dict[str, Any]) -> None:
    out.write(json.dumps(payload, default=str) + "\n")
    out.flush()


def _import_torch(result: dict[str, Any]) -> Any:
    start = time.perf_counter()
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        result["torch_error"] = _err(exc)
        return None
    result["import_s"] = round(time.perf_counter() - start, 3)
    result["torch"] = torch.__version__
    result["cuda"] = getattr(torch.version, "cuda", None)
    result["hip"] = getattr(torch.version, "hip", None)
    result["extensions"] = {}
    for dtype_name, module in _EXTENSIONS.items():
        if module and importlib.util.find_spec(module) is not None:
            try:
                importlib.import_module(module)
                result["extensions"][module] = "loaded"
            except Exception as exc:  # noqa: BLE001
                result["extensions"][module] = _err(exc)
    return torch


def _device_types(torch: Any, result: dict[str, Any]) -> list[tuple[str, Any]]:
    found = []
    types: dict[str, Any] = {}
    for name in _TYPES:
        module = getattr(torch, name, None)
        if module is None or not hasattr(module, "is_available"):
            continue
        entry: dict[str, Any] = {}
        try:
            entry["available"] = bool(module.is_available())
        except Exception as exc:  # noqa: BLE001
            entry["available"] = False
            entry["error"] = _err(exc)
        if not entry["available"] and name == "cuda" and "error" not in entry:
            # is_available() says only False; init() says why ("Found no NVIDIA driver...")
            try:
                module.init()
            except Exception as exc:  # noqa: BLE001
                entry["error"] = _err(exc)
        if entry["available"] and hasattr(module, "device_count"):
            try:
                entry["count"] = int(module.device_count())
            except Exception as exc:  # noqa: BLE001
                entry["error"] = _err(exc)
        types[name] = entry
        if entry["available"]:
            found.append((name, module))
    result["device_types"] = types
    return found


def _bus_id(props: Any) -> str | None:
    domain, bus, dev = (getattr(props, a, None) for a in ("pci_domain_id", "pci_bus_id", "pci_device_id"))
    if bus is None or dev is None:
        return None
    return f"{int(domain or 0):04x}:{int(bus):02x}:{int(dev):02x}.0"


def _devices(torch: Any, found: list[tuple[str, Any]], result: dict[str, Any]) -> None:
    devices = []
    for type_name, module in found:
        count = result["device_types"][type_name].get("count", 0)
        for index in range(count):
            d: dict[str, Any] = {"type": type_name, "index": index}
            try:
                d["name"] = module.get_device_name(index)
            except Exception as exc:  # noqa: BLE001
                d["error"] = _err(exc)
            try:
                props = module.get_device_properties(index)
                d["total_memory"] = getattr(props, "total_memory", None)
                major, minor = getattr(props, "major", None), getattr(props, "minor", None)
                if major is not None and minor is not None:
                    d["capability"] = f"{major}.{minor}"
                arch = getattr(props, "gcnArchName", None)
                if arch:
                    d["arch"] = str(arch).split(":")[0]
                d["multi_processor_count"] = getattr(props, "multi_processor_count", None)
                d["bus_id"] = _bus_id(props)
            except Exception as exc:  # noqa: BLE001
                d.setdefault("error", _err(exc))
            devices.append(d)
        if hasattr(module, "get_arch_list"):
            try:
                result.setdefault("arch_list", {})[type_name] = list(module.get_arch_list())
            except Exception as exc:  # noqa: BLE001
                result.setdefault("arch_list", {})[type_name] = _err(exc)
    result["devices"] = devices


def _doctor(torch: Any, found: list[tuple[str, Any]], result: dict[str, Any]) -> None:
    checks: dict[str, Any] = {}
    result["checks"] = checks
    if not found:
        return
    type_name, module = found[0]
    device = torch.device(type_name, 0)
    # the driver's share of the cold start: first context creation and first allocation
    start = time.perf_counter()
    try:
        if hasattr(module, "init"):
            module.init()
        torch.zeros(1, device=device)
        if hasattr(module, "synchronize"):
            module.synchronize(device)
        checks["init"] = {"ok": True, "seconds": round(time.perf_counter() - start, 3)}
    except Exception as exc:  # noqa: BLE001
        checks["init"] = {"ok": False, "seconds": round(time.perf_counter() - start, 3), "error": _err(exc)}
        return
    try:
        if hasattr(module, "mem_get_info"):
            free, total = module.mem_get_info(device)
            checks["memory"] = {"free": int(free), "total": int(total)}
    except Exception as exc:  # noqa: BLE001
        checks["memory"] = {"error": _err(exc)}
    # a small kernel: matmul and reduction on the device, checked against the CPU
    try:
        if type_name == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = False
        gen = torch.Generator().manual_seed(0)
        a = torch.randn(64, 64, generator=gen)
        b = torch.randn(64, 64, generator=gen)
        want = (a @ b).sum(dim=0)
        got = (a.to(device) @ b.to(device)).sum(dim=0).cpu()
        err = float((got - want).abs().max())
        checks["kernel"] = {"ok": bool(torch.allclose(got, want, rtol=1e-3, atol=1e-3)), "max_abs_err": err}
    except Exception as exc:  # noqa: BLE001
        checks["kernel"] = {"ok": False, "error": _err(exc)}
    for label, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        try:
            conv = torch.nn.Conv2d(3, 8, 3).to(device)
            lin = torch.nn.Linear(8, 4).to(device)
            x = torch.randn(2, 3, 8, 8, device=device)
            with torch.autocast(device_type=type_name, dtype=dtype):
                y = lin(conv(x).mean(dim=(2, 3)))
            y.float().sum().backward()
            checks[f"autocast_{label}"] = {"ok": bool(torch.isfinite(y.float()).all()), "dtype": str(y.dtype)}
        except Exception as exc:  # noqa: BLE001
            checks[f"autocast_{label}"] = {"ok": False, "error": _err(exc)}


def _tensorflow(result: dict[str, Any]) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import tensorflow as tf  # type: ignore[import-not-found]
    except Exception as exc:  # noqa: BLE001
        result["tensorflow_error"] = _err(exc)
        return
    result["tensorflow"] = tf.__version__
    try:
        result["tensorflow_gpus"] = [d.name for d in tf.config.list_physical_devices("GPU")]
    except Exception as exc:  # noqa: BLE001
        result["tensorflow_error"] = _err(exc)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # stray prints from vendor libraries must not corrupt the JSON line: keep the real stdout for it
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    result: dict[str, Any] = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        if "--tensorflow" in argv:
            _tensorflow(result)
        else:
            torch = _import_torch(result)
            if torch is not None:
                found = _device_types(torch, result)
                _devices(torch, found, result)
                if "--doctor" in argv:
                    _doctor(torch, found, result)
    except Exception as exc:  # noqa: BLE001 - report, never a bare traceback on stdout
        result["probe_error"] = _err(exc)
        traceback.print_exc()
    _emit(out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
