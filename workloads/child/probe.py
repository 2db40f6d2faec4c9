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
hides the others; the exit status is 0 whenever the JSON was printed. The JSON's
shape is ``workloads.probe_report.ProbeReport``: the readers parse it from there.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Any

from workloads.child import device_types as table
from workloads.errors import first_line
from workloads.probe_report import DeviceCheck, DeviceChecks, DeviceMemory, DeviceType, ProbeDevice, ProbeReport



def _err(exc: BaseException) -> str:
    return first_line(exc, typed=True, limit=500)


def _emit(out: Any, report: ProbeReport) -> None:
    out.write(json.dumps(report.to_dict(), default=str) + "\n")
    out.flush()


def _import_torch(report: ProbeReport) -> Any:
    start = time.perf_counter()
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        report.torch_error = _err(exc)
        return None
    report.import_s = round(time.perf_counter() - start, 3)
    report.torch = torch.__version__
    report.cuda = getattr(torch.version, "cuda", None)
    report.hip = getattr(torch.version, "hip", None)
    # the vendor extensions the device table names, where installed and torch lacks their type's module
    for row in table.installed_extensions():
        if table.needs_extension(torch, row):
            try:
                table.import_extension(row)
                report.extensions[row.extension] = "loaded"
            except table.ExtensionFailed as exc:
                report.extensions[row.extension] = exc.reason
    return torch


def _device_types(torch: Any, report: ProbeReport) -> list[tuple[str, Any]]:
    found = []
    for name in table.ACCELERATORS:
        module = table.device_module(torch, name)
        if module is None:
            continue
        entry = DeviceType()
        try:
            entry.available = bool(module.is_available())
        except Exception as exc:  # noqa: BLE001
            entry.available, entry.error = False, _err(exc)
        if not entry.available and name == "cuda" and entry.error is None:
            # is_available() says only False; init() says why ("Found no NVIDIA driver...")
            try:
                module.init()
            except Exception as exc:  # noqa: BLE001
                entry.error = _err(exc)
        if entry.available and hasattr(module, "device_count"):
            try:
                entry.count = int(module.device_count())
            except Exception as exc:  # noqa: BLE001
                entry.error = _err(exc)
        report.device_types[name] = entry
        if entry.available:
            found.append((name, module))
    return found


def _bus_id(props: Any) -> str | None:
    domain, bus, dev = (getattr(props, a, None) for a in ("pci_domain_id", "pci_bus_id", "pci_device_id"))
    if bus is None or dev is None:
        return None
    return f"{int(domain or 0):04x}:{int(bus):02x}:{int(dev):02x}.0"


def _devices(torch: Any, found: list[tuple[str, Any]], report: ProbeReport) -> None:
    for type_name, module in found:
        for index in range(report.device_types[type_name].count or 0):
            d = ProbeDevice(type=type_name, index=index)
            try:
                d.name = module.get_device_name(index)
            except Exception as exc:  # noqa: BLE001
                d.error = _err(exc)
            try:
                props = module.get_device_properties(index)
                d.total_memory = getattr(props, "total_memory", None)
                major, minor = getattr(props, "major", None), getattr(props, "minor", None)
                if major is not None and minor is not None:
                    d.capability = f"{major}.{minor}"
                arch = getattr(props, "gcnArchName", None)
                if arch:
                    d.arch = str(arch).split(":")[0]
                d.multi_processor_count = getattr(props, "multi_processor_count", None)
                d.bus_id = _bus_id(props)
            except Exception as exc:  # noqa: BLE001
                d.error = d.error or _err(exc)
            report.devices.append(d)
        if hasattr(module, "get_arch_list"):
            try:
                report.arch_list[type_name] = list(module.get_arch_list())
            except Exception as exc:  # noqa: BLE001
                report.arch_list[type_name] = _err(exc)


def _doctor(torch: Any, found: list[tuple[str, Any]], report: ProbeReport) -> None:
    checks = report.checks = DeviceChecks()
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
        checks.init = DeviceCheck(ok=True, seconds=round(time.perf_counter() - start, 3))
    except Exception as exc:  # noqa: BLE001
        checks.init = DeviceCheck(ok=False, seconds=round(time.perf_counter() - start, 3), error=_err(exc))
        return
    try:
        if hasattr(module, "mem_get_info"):
            free, total = module.mem_get_info(device)
            checks.memory = DeviceMemory(free=int(free), total=int(total))
    except Exception as exc:  # noqa: BLE001
        checks.memory = DeviceMemory(error=_err(exc))
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
        checks.kernel = DeviceCheck(ok=bool(torch.allclose(got, want, rtol=1e-3, atol=1e-3)), max_abs_err=err)
    except Exception as exc:  # noqa: BLE001
        checks.kernel = DeviceCheck(ok=False, error=_err(exc))
    for label, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        try:
            conv = torch.nn.Conv2d(3, 8, 3).to(device)
            lin = torch.nn.Linear(8, 4).to(device)
            x = torch.randn(2, 3, 8, 8, device=device)
            with torch.autocast(device_type=type_name, dtype=dtype):
                y = lin(conv(x).mean(dim=(2, 3)))
            y.float().sum().backward()
            outcome = DeviceCheck(ok=bool(torch.isfinite(y.float()).all()), dtype=str(y.dtype))
        except Exception as exc:  # noqa: BLE001
            outcome = DeviceCheck(ok=False, error=_err(exc))
        setattr(checks, f"autocast_{label}", outcome)


def _tensorflow(report: ProbeReport) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import tensorflow as tf  # type: ignore[import-not-found]
    except Exception as exc:  # noqa: BLE001
        report.tensorflow_error = _err(exc)
        return
    report.tensorflow = tf.__version__
    try:
        report.tensorflow_gpus = [d.name for d in tf.config.list_physical_devices("GPU")]
    except Exception as exc:  # noqa: BLE001
        report.tensorflow_error = _err(exc)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # stray prints from vendor libraries must not corrupt the JSON line: keep the real stdout for it
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    report = ProbeReport(python=sys.version.split()[0], executable=sys.executable)
    try:
        if "--tensorflow" in argv:
            _tensorflow(report)
        else:
            torch = _import_torch(report)
            if torch is not None:
                found = _device_types(torch, report)
                _devices(torch, found, report)
                if "--doctor" in argv:
                    _doctor(torch, found, report)
    except Exception as exc:  # noqa: BLE001 - report, never a bare traceback on stdout
        report.probe_error = _err(exc)
        traceback.print_exc()
    _emit(out, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
