"""The doctor's verdicts: pure functions of `Facts`, so every verdict and hint is testable without a GPU.

Each check is PASS / WARN / FAIL / SKIP with its evidence, a one-line hint, its
stable id (``TITLES`` holds the ids and names) and its number where it has one.
"""

from __future__ import annotations

import re
from typing import Callable

from tui.doctor.check import FAIL, PASS, SKIP, TITLES, WARN, DoctorCheck
from tui.doctor.facts import VISIBLE_DEVICE_VARS, Facts
from tui.formatting import NA, duration, nbytes
from tui.telemetry import vendors
from workloads.hints import hint_for
from workloads.probe_report import DeviceCheck, DeviceChecks, ProbeDevice

DISK_WARN_GIB = 20.0   # ResNet-50 data, checkpoints, GPT-2 weights and the report need a few GiB each
DISK_FAIL_GIB = 2.0
INIT_WARN_S = 20.0     # a healthy driver creates a context in well under this (persistence mode off: ~1-10 s)


def _check(check_id: str, status: str, evidence: str, hint: str = "", value: float | None = None,
           unit: str | None = None) -> DoctorCheck:
    return DoctorCheck(TITLES[check_id], status, evidence, hint, id=check_id,
                       value=float(value) if value is not None else None, unit=unit if value is not None else None)


def _hint(text: str | None, fallback: str = "") -> str:
    return (hint_for(text or "") or fallback) if text else fallback


def _gpus_elsewhere(f: Facts) -> int:
    """How many accelerators something other than torch sees (CLI, NVML, PCI bus)."""
    return max(f.cli_gpu_count or 0, f.nvml_count or 0, len(f.pci_vendors))


def _torch_devices(f: Facts) -> list[ProbeDevice]:
    return list(f.probe.devices) if f.probe is not None else []


def check_cli(f: Facts) -> DoctorCheck:
    cid = "cli.answers"
    if f.cli_name is None:
        tried = ", ".join(vendors.names())
        if f.pci_vendors:
            return _check(cid, WARN, f"none on PATH ({tried}); the PCI bus shows {', '.join(f.pci_vendors)}",
                          "the image lacks the vendor's management tool: install the driver's utilities package")
        return _check(cid, SKIP, f"none on PATH ({tried}); no accelerator on the PCI bus")
    if not f.cli_ok:
        return _check(cid, FAIL, f.cli_error or f"{f.cli_name} failed", _hint(f.cli_error,
                      "the driver does not answer: check `dmesg` for errors, and that the driver is loaded"))
    first = next((line.strip() for line in f.cli_output.splitlines() if line.strip()), "")
    count = f" lists {f.cli_gpu_count} GPU(s);" if f.cli_gpu_count is not None else ""
    return _check(cid, PASS, f"{f.cli_name}{count} {first[:120]}".strip(), value=f.cli_gpu_count, unit="devices")


def check_nvml(f: Facts) -> DoctorCheck:
    cid = "nvml.loads"
    if f.nvml_ok:
        evidence = f"{f.nvml_count} device(s), driver {f.nvml_driver or NA}"
        if f.nvml_errors:
            return _check(cid, FAIL, f"{evidence}; {'; '.join(f.nvml_errors)}", _hint(f.nvml_errors[0]),
                          f.nvml_count, "devices")
        return _check(cid, PASS, evidence, value=f.nvml_count, unit="devices")
    # an nvidia-smi-compatible CLI comes with an NVML-compatible library; other makers ship neither
    nvidia_like = "NVIDIA" in f.pci_vendors or f.cli_name in vendors.names(vendors.SMI_CSV)
    if not nvidia_like:
        others = ", ".join(sorted(set(f.pci_vendors))) or "no accelerator"
        return _check(cid, SKIP, f"not loaded ({f.nvml_error}) (expected here: the PCI bus shows {others})")
    return _check(cid, FAIL, f"not loaded ({f.nvml_error})", _hint(f.nvml_error))


def check_pci(f: Facts) -> DoctorCheck:
    cid = "pci.accelerators"
    if not f.pci_vendors:
        # no value: an empty bus and a container without sysfs look the same from here
        return _check(cid, WARN if _gpus_elsewhere(f) == 0 else PASS,
                      "none found in /sys/bus/pci (no GPU here, or no sysfs in this container)",
                      "" if _gpus_elsewhere(f) else "this machine shows no accelerator: was a GPU instance rented?")
    counts: dict[str, int] = {}
    for v in f.pci_vendors:
        counts[v] = counts.get(v, 0) + 1
    return _check(cid, PASS, ", ".join(f"{n}x {v}" for v, n in counts.items()), value=len(f.pci_vendors),
                  unit="devices")


def check_torch_import(f: Facts) -> DoctorCheck:
    cid = "torch.imports"
    p = f.probe
    if p is None:
        return _check(cid, FAIL, f.probe_error or "the torch probe gave no answer", _hint(f.probe_error))
    if p.torch_error:
        return _check(cid, FAIL, p.torch_error, _hint(p.torch_error, "install the image's PyTorch into this Python"))
    built = [f"CUDA {p.cuda}" if p.cuda else "", f"ROCm/HIP {p.hip}" if p.hip else ""]
    built_text = ", ".join(b for b in built if b) or "CPU only"
    ext_text = "".join(f"; {k}: {v}" for k, v in p.extensions.items())
    broken = [v for v in p.extensions.values() if v != "loaded"]
    evidence = f"torch {p.torch} built for {built_text}, import {duration(p.import_s)}{ext_text}"
    if broken:
        return _check(cid, WARN, evidence, _hint(broken[0], "the vendor's torch extension fails to import"),
                      p.import_s, "s")
    return _check(cid, PASS, evidence, value=p.import_s, unit="s")


def check_torch_sees(f: Facts) -> DoctorCheck:
    cid = "torch.sees_device"
    if f.probe is None or f.probe.torch_error:
        return _check(cid, SKIP, "torch did not import")
    p = f.probe
    devices = _torch_devices(f)
    elsewhere = _gpus_elsewhere(f)
    seen = {"value": len(devices), "unit": "devices"}
    if devices:
        names = "; ".join(f"{d.label} {d.name or NA} (capability {d.target or NA})" for d in devices)
        evidence = f"{len(devices)} device(s): {names}"
        if elsewhere > len(devices) and not f.env.get("CUDA_VISIBLE_DEVICES"):
            return _check(cid, WARN, f"{evidence}; but {elsewhere} on the bus/CLI",
                          "some devices are hidden or failed to initialise: check the visible-devices variables and dmesg",
                          **seen)
        return _check(cid, PASS, evidence, **seen)
    why = p.device_type_error()
    if elsewhere == 0:
        return _check(cid, SKIP, "no accelerator on this machine" + (f" ({why})" if why else ""), **seen)
    if not p.cuda and not p.hip and not p.extensions:
        return _check(cid, FAIL, f"{elsewhere} accelerator(s) present, but this torch is a CPU-only build",
                      _hint("Torch not compiled with CUDA enabled"), **seen)
    evidence = f"management CLI/NVML/PCI see {elsewhere} accelerator(s), torch sees none" + (f" ({why})" if why else "")
    return _check(cid, FAIL, evidence, _hint("management CLI lists GPUs but torch sees none"), **seen)


def _arch_ok(capability: str, arch_list: list[str]) -> bool:
    """Does the build hold code for this capability: SASS for it (sm_XY), or PTX it can JIT (compute_XY <=)?"""
    if capability.startswith("gfx"):
        return any(a.split(":")[0] == capability for a in arch_list)
    try:
        major, minor = (int(x) for x in capability.split("."))
    except ValueError:
        return True  # a capability we cannot read is not evidence of a mismatch
    want = major * 10 + minor
    for arch in arch_list:
        m = re.fullmatch(r"(sm|compute)_(\d+)([a-z]?)", arch)
        if not m:
            continue
        have = int(m.group(2))
        if m.group(1) == "sm" and have == want:
            return True
        if m.group(1) == "sm" and have // 10 == major and have <= want and not m.group(3):
            return True  # same major: binary compatible
        if m.group(1) == "compute" and have <= want:
            return True
    return False


def check_arch(f: Facts) -> DoctorCheck:
    cid = "torch.arch_list"
    devices = _torch_devices(f)
    if not devices or f.probe is None:
        return _check(cid, SKIP, "no device seen by torch")
    problems, seen = [], []
    for d in devices:
        archs = f.probe.archs(d.type)
        if not d.target or not archs:
            continue
        seen.append(f"{d.label} {d.target}")
        if not _arch_ok(d.target, archs):
            problems.append(f"{d.label} is {d.target}, build has {' '.join(archs)}")
    if problems:
        return _check(cid, FAIL, "; ".join(problems), _hint("no kernel image is available"))
    if not seen:
        return _check(cid, SKIP, "this device type reports no arch list (vendor layer)")
    archs_text = "; ".join(f"{k}: {' '.join(v)}" for k, v in f.probe.arch_list.items() if isinstance(v, list))
    return _check(cid, PASS, f"{', '.join(seen)} in [{archs_text}]")


def _device_check(f: Facts, cid: str, pick: Callable[[DeviceChecks], DeviceCheck | None],
                  evidence_ok: Callable[[DeviceCheck], str]) -> tuple[DoctorCheck, DeviceCheck | None]:
    """One of the probe's tests on the device -> a verdict, and the test's record for the caller's value."""
    if not _torch_devices(f) or f.probe is None:
        return _check(cid, SKIP, "no device seen by torch"), None
    checks = f.probe.checks
    init = checks.init if checks is not None else None
    if cid != "device.init" and init is not None and not init.ok:
        return _check(cid, SKIP, "the device did not initialise"), None
    entry = pick(checks) if checks is not None else None
    if entry is None:
        return _check(cid, SKIP, "not run"), None
    if entry.ok:
        return _check(cid, PASS, evidence_ok(entry)), entry
    err = entry.error or "wrong result"
    return _check(cid, FAIL, err, _hint(err, "the device computes wrong numbers: report it to the platform")), entry


def check_init(f: Facts) -> DoctorCheck:
    import_s = duration(f.probe.import_s if f.probe is not None else None)
    check, entry = _device_check(
        f, "device.init", lambda c: c.init,
        lambda e: f"{duration(e.seconds)} to the first tensor on the device "
                  f"(torch import {import_s}; bound {duration(INIT_WARN_S)})")
    if check.status != PASS or entry is None or entry.seconds is None:
        return check  # a failed start's seconds are the time to the error, not an initialisation time
    status, hint = PASS, ""
    if entry.seconds > INIT_WARN_S:
        status = WARN
        hint = "slow driver start: enable persistence mode (`nvidia-smi -pm 1`) or set CUDA_MODULE_LOADING=LAZY"
    return _check(check.id, status, check.evidence, hint, entry.seconds, "s")


def check_kernel(f: Facts) -> DoctorCheck:
    check, entry = _device_check(
        f, "device.kernel", lambda c: c.kernel,
        lambda e: f"64x64 matmul + sum matches the CPU (max abs error {e.max_abs_err or 0:.2e}, bound 1e-3)")
    if entry is None or entry.max_abs_err is None:
        return check
    return _check(check.id, check.status, check.evidence, check.hint, entry.max_abs_err)  # a difference of plain numbers: no unit


def check_autocast(f: Facts, label: str) -> DoctorCheck:
    check, _entry = _device_check(
        f, f"device.autocast.{label}", lambda c: c.autocast(label),
        lambda e: f"conv + linear forward/backward under autocast, output {e.dtype}")
    return check


def check_tensorflow(f: Facts) -> DoctorCheck:
    cid = "tensorflow.sees_device"
    if not f.tf_installed:
        return _check(cid, SKIP, "TensorFlow is not installed (optional)")
    if f.tf is None or f.tf.tensorflow_error:
        err = (f.tf.tensorflow_error if f.tf is not None else None) or f.tf_error or "no answer"
        return _check(cid, WARN, f"TensorFlow does not import ({err})", _hint(err))
    gpus = f.tf.tensorflow_gpus
    seen = {"value": len(gpus), "unit": "devices"}
    if gpus:
        return _check(cid, PASS, f"TensorFlow {f.tf.tensorflow}: {len(gpus)} GPU(s)", **seen)
    if _torch_devices(f) or _gpus_elsewhere(f):
        return _check(cid, WARN, f"TensorFlow {f.tf.tensorflow} lists no GPU",
                      "this TensorFlow is a CPU build or does not match the driver: use the image's TensorFlow", **seen)
    return _check(cid, SKIP, f"TensorFlow {f.tf.tensorflow}; no accelerator on this machine", **seen)


def check_disk(f: Facts) -> DoctorCheck:
    cid = "disk.free"
    if f.disk_free_bytes is None:
        return _check(cid, WARN, f"cannot read the free space of {f.disk_path}")
    gib = f.disk_free_bytes / 2**30
    evidence = f"{nbytes(f.disk_free_bytes)} free of {nbytes(f.disk_total_bytes)} at {f.disk_path} " \
               f"(warn below {DISK_WARN_GIB:g} GiB, fail below {DISK_FAIL_GIB:g} GiB)"
    hint = "free space, or run from a larger volume: data sets, checkpoints and the report need several GiB"
    status = FAIL if gib < DISK_FAIL_GIB else WARN if gib < DISK_WARN_GIB else PASS
    return _check(cid, status, evidence, hint if status != PASS else "", round(gib, 2), "GiB")


def check_env(f: Facts) -> DoctorCheck:
    cid = "env.visible_devices"
    if not f.env:
        return _check(cid, PASS, "none set: every device is visible")
    shown = "; ".join(f"{k}={v!r}" for k, v in f.env.items())
    for key in VISIBLE_DEVICE_VARS[:-1]:  # the last, CUDA_DEVICE_ORDER, orders devices and hides none
        value = f.env.get(key)
        if value is not None and value.strip().lower() in ("", "-1", "none", "nodevfiles", "void"):
            return _check(cid, WARN, shown, _hint(f"{key} hides every device"))
    return _check(cid, PASS, shown)


def checks_from(f: Facts) -> list[DoctorCheck]:
    return [
        check_cli(f),
        check_nvml(f),
        check_pci(f),
        check_torch_import(f),
        check_torch_sees(f),
        check_arch(f),
        check_init(f),
        check_kernel(f),
        check_autocast(f, "fp16"),
        check_autocast(f, "bf16"),
        check_tensorflow(f),
        check_disk(f),
        check_env(f),
    ]
