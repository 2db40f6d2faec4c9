"""The environment doctor (`cardbench doctor [--json]`): is the card there, and does this PyTorch use it?

Each check is PASS / WARN / FAIL / SKIP with its evidence and a one-line hint.
Facts are gathered first (`gather`) - the management CLI, NVML, the PCI bus,
a torch probe child (`python -m workloads.child.probe --doctor`), TensorFlow in its
own child when installed, disk space and the visible-devices variables - and
the checks are pure functions of those facts (`checks_from`), so every
verdict and hint is testable without a GPU. torch is never imported here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
import threading
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, TextIO

from workloads.hints import hint_for

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"

# management CLIs, most specific first: (executable, arguments that list the devices)
MANAGEMENT_CLIS: list[tuple[str, list[str]]] = [
    ("nvidia-smi", ["-L"]),
    ("ixsmi", ["-L"]),
    ("amd-smi", ["list"]),
    ("rocm-smi", ["--showproductname"]),
    ("hy-smi", []),
    ("mthreads-gmi", []),
    ("mx-smi", []),
    ("npu-smi", ["info"]),
    ("cnmon", []),
]
VISIBLE_DEVICE_VARS = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                       "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ASCEND_RT_VISIBLE_DEVICES",
                       "MUSA_VISIBLE_DEVICES", "MLU_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
CLI_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 120.0
DISK_WARN_GIB = 20.0   # ResNet-50 data, checkpoints, GPT-2 weights and the report need a few GiB each
DISK_FAIL_GIB = 2.0
INIT_WARN_S = 20.0     # a healthy driver creates a context in well under this (persistence mode off: ~1-10 s)


@dataclass(frozen=True)
class DoctorCheck:
    name: str
    status: str      # PASS / WARN / FAIL / SKIP
    evidence: str    # what was seen, with numbers
    hint: str = ""   # one line: what to do; empty when there is nothing to do

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Facts:
    """Everything the checks look at; built by `gather`, or by hand in tests."""

    cli_name: str | None = None
    cli_ok: bool | None = None
    cli_output: str = ""
    cli_error: str | None = None
    cli_gpu_count: int | None = None
    nvml_ok: bool | None = None
    nvml_error: str | None = None
    nvml_count: int | None = None
    nvml_driver: str | None = None
    nvml_errors: list[str] = field(default_factory=list)   # per-device problems ("GPU 1: GPU is lost")
    pci_vendors: list[str] = field(default_factory=list)   # one per accelerator on the bus
    probe: dict[str, Any] | None = None
    probe_error: str | None = None
    tf_installed: bool = False
    tf: dict[str, Any] | None = None
    tf_error: str | None = None
    disk_path: str = "."
    disk_free_bytes: int | None = None
    disk_total_bytes: int | None = None
    env: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------- gathering


def _cwd_or_root() -> str:
    try:
        return os.getcwd()
    except OSError:  # the shell's directory was deleted under it
        return "/"


def gather_cli(facts: Facts, timeout: float = CLI_TIMEOUT_S) -> None:
    from tui.telemetry.cli_tool import run_bounded

    for exe, args in MANAGEMENT_CLIS:
        path = shutil.which(exe)
        if path is None:
            continue
        facts.cli_name = exe
        done = run_bounded([path] + args, timeout)
        facts.cli_output = done.stdout
        out = done.stdout
        if done.problem:
            facts.cli_ok, facts.cli_error = False, done.problem
        else:
            facts.cli_ok = True
            if args == ["-L"]:
                facts.cli_gpu_count = sum(1 for line in out.splitlines() if re.match(r"\s*GPU \d+", line))
        return


def gather_nvml(facts: Facts, module: Any = None) -> None:
    from tui.telemetry.nvml import NvmlSource, _text

    source = NvmlSource(module=module)
    if not source.available():
        facts.nvml_ok, facts.nvml_error = False, source.unavailable_reason
        return
    try:
        facts.nvml_ok = True
        facts.nvml_count = source.query("nvmlDeviceGetCount")
        facts.nvml_driver = _text(source.query("nvmlSystemGetDriverVersion"))
        _devices, facts.nvml_errors = source.read()
    finally:
        source.close()


def gather(probe_timeout: float = PROBE_TIMEOUT_S, disk_path: str | None = None,
           on_progress: Callable[[str], None] | None = None) -> Facts:
    """Collect the facts; the slow torch child runs in parallel with the quick checks."""
    from tui.telemetry import pci
    from tui.telemetry.torch_probe import run_probe

    facts = Facts(disk_path=disk_path or _cwd_or_root())
    note = on_progress or (lambda _text: None)

    def probe() -> None:
        facts.probe, facts.probe_error = run_probe(["--doctor"], timeout=probe_timeout)

    worker = threading.Thread(target=probe, name="cardbench-doctor-probe", daemon=True)
    worker.start()
    note("management CLI")
    gather_cli(facts)
    note("NVML")
    gather_nvml(facts)
    facts.pci_vendors = [d.vendor for d in pci.scan()]
    try:
        usage = shutil.disk_usage(facts.disk_path)
        facts.disk_free_bytes, facts.disk_total_bytes = usage.free, usage.total
    except OSError:
        pass
    facts.env = {k: os.environ[k] for k in VISIBLE_DEVICE_VARS if k in os.environ}
    facts.tf_installed = importlib.util.find_spec("tensorflow") is not None
    if facts.tf_installed:
        note("TensorFlow")
        facts.tf, facts.tf_error = run_probe(["--tensorflow"], timeout=probe_timeout)
    note("torch (child process)")
    worker.join(probe_timeout + 10)
    if worker.is_alive():
        facts.probe_error = f"torch probe: no answer within {probe_timeout:g} s"
    return facts


# ---------------------------------------------------------------- checks

def _hint(text: str | None, fallback: str = "") -> str:
    return (hint_for(text or "") or fallback) if text else fallback


def _gpus_elsewhere(f: Facts) -> int:
    """How many accelerators something other than torch sees (CLI, NVML, PCI bus)."""
    return max(f.cli_gpu_count or 0, f.nvml_count or 0, len(f.pci_vendors))


def _torch_devices(f: Facts) -> list[dict[str, Any]]:
    return list((f.probe or {}).get("devices") or [])


def check_cli(f: Facts) -> DoctorCheck:
    name = "management CLI answers"
    if f.cli_name is None:
        tried = ", ".join(exe for exe, _ in MANAGEMENT_CLIS)
        if f.pci_vendors:
            return DoctorCheck(name, WARN, f"none on PATH ({tried}); the PCI bus shows {', '.join(f.pci_vendors)}",
                               "the image lacks the vendor's management tool: install the driver's utilities package")
        return DoctorCheck(name, SKIP, f"none on PATH ({tried}); no accelerator on the PCI bus")
    if not f.cli_ok:
        return DoctorCheck(name, FAIL, f.cli_error or f"{f.cli_name} failed", _hint(f.cli_error,
                           "the driver does not answer: check `dmesg` for errors, and that the driver is loaded"))
    first = next((line.strip() for line in f.cli_output.splitlines() if line.strip()), "")
    count = f" lists {f.cli_gpu_count} GPU(s);" if f.cli_gpu_count is not None else ""
    return DoctorCheck(name, PASS, f"{f.cli_name}{count} {first[:120]}".strip())


def check_nvml(f: Facts) -> DoctorCheck:
    name = "NVML library loads"
    if f.nvml_ok:
        evidence = f"{f.nvml_count} device(s), driver {f.nvml_driver or 'N/A'}"
        if f.nvml_errors:
            return DoctorCheck(name, FAIL, f"{evidence}; {'; '.join(f.nvml_errors)}", _hint(f.nvml_errors[0]))
        return DoctorCheck(name, PASS, evidence)
    nvidia_like = "NVIDIA" in f.pci_vendors or f.cli_name in ("nvidia-smi", "ixsmi")
    if not nvidia_like:
        others = ", ".join(sorted(set(f.pci_vendors))) or "no accelerator"
        return DoctorCheck(name, SKIP, f"not loaded ({f.nvml_error}) (expected here: the PCI bus shows {others})")
    return DoctorCheck(name, FAIL, f"not loaded ({f.nvml_error})", _hint(f.nvml_error))


def check_pci(f: Facts) -> DoctorCheck:
    name = "accelerators on the PCI bus"
    if not f.pci_vendors:
        return DoctorCheck(name, WARN if _gpus_elsewhere(f) == 0 else PASS,
                           "none found in /sys/bus/pci (no GPU here, or no sysfs in this container)",
                           "" if _gpus_elsewhere(f) else "this machine shows no accelerator: was a GPU instance rented?")
    counts: dict[str, int] = {}
    for v in f.pci_vendors:
        counts[v] = counts.get(v, 0) + 1
    return DoctorCheck(name, PASS, ", ".join(f"{n}x {v}" for v, n in counts.items()))


def check_torch_import(f: Facts) -> DoctorCheck:
    name = "torch imports"
    if f.probe is None:
        return DoctorCheck(name, FAIL, f.probe_error or "the torch probe gave no answer", _hint(f.probe_error))
    if f.probe.get("torch_error"):
        err = f.probe["torch_error"]
        return DoctorCheck(name, FAIL, err, _hint(err, "install the image's PyTorch into this Python"))
    built = [f"CUDA {f.probe['cuda']}" if f.probe.get("cuda") else "", f"ROCm/HIP {f.probe['hip']}" if f.probe.get("hip") else ""]
    built_text = ", ".join(b for b in built if b) or "CPU only"
    ext = f.probe.get("extensions") or {}
    ext_text = "".join(f"; {k}: {v}" for k, v in ext.items())
    broken = [v for v in ext.values() if v != "loaded"]
    evidence = f"torch {f.probe.get('torch')} built for {built_text}, import {f.probe.get('import_s', 'N/A')} s{ext_text}"
    if broken:
        return DoctorCheck(name, WARN, evidence, _hint(broken[0], "the vendor's torch extension fails to import"))
    return DoctorCheck(name, PASS, evidence)


def check_torch_sees(f: Facts) -> DoctorCheck:
    name = "torch sees the accelerator"
    if f.probe is None or f.probe.get("torch_error"):
        return DoctorCheck(name, SKIP, "torch did not import")
    devices = _torch_devices(f)
    elsewhere = _gpus_elsewhere(f)
    if devices:
        names = "; ".join(f"{d['type']}:{d['index']} {d.get('name', 'N/A')} (capability "
                          f"{d.get('arch') or d.get('capability') or 'N/A'})" for d in devices)
        evidence = f"{len(devices)} device(s): {names}"
        if elsewhere > len(devices) and not f.env.get("CUDA_VISIBLE_DEVICES"):
            return DoctorCheck(name, WARN, f"{evidence}; but {elsewhere} on the bus/CLI",
                               "some devices are hidden or failed to initialise: check the visible-devices variables and dmesg")
        return DoctorCheck(name, PASS, evidence)
    types = (f.probe.get("device_types") or {})
    why = next((t["error"] for t in types.values() if t.get("error")), None)
    if elsewhere == 0:
        return DoctorCheck(name, SKIP, "no accelerator on this machine" + (f" ({why})" if why else ""))
    cpu_only = not f.probe.get("cuda") and not f.probe.get("hip") and not f.probe.get("extensions")
    if cpu_only:
        text = "Torch not compiled with CUDA enabled"
        return DoctorCheck(name, FAIL, f"{elsewhere} accelerator(s) present, but this torch is a CPU-only build",
                           _hint(text))
    evidence = f"management CLI/NVML/PCI see {elsewhere} accelerator(s), torch sees none" + (f" ({why})" if why else "")
    return DoctorCheck(name, FAIL, evidence, _hint("management CLI lists GPUs but torch sees none"))


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
    name = "build's arch list covers the device"
    devices = _torch_devices(f)
    if not devices:
        return DoctorCheck(name, SKIP, "no device seen by torch")
    lists = (f.probe or {}).get("arch_list") or {}
    problems, seen = [], []
    for d in devices:
        cap = d.get("arch") or d.get("capability")
        archs = lists.get(d["type"])
        if not cap or not isinstance(archs, list) or not archs:
            continue
        seen.append(f"{d['type']}:{d['index']} {cap}")
        if not _arch_ok(cap, archs):
            problems.append(f"{d['type']}:{d['index']} is {cap}, build has {' '.join(archs)}")
    if problems:
        return DoctorCheck(name, FAIL, "; ".join(problems), _hint("no kernel image is available"))
    if not seen:
        return DoctorCheck(name, SKIP, "this device type reports no arch list (vendor layer)")
    archs_text = "; ".join(f"{k}: {' '.join(v)}" for k, v in lists.items() if isinstance(v, list))
    return DoctorCheck(name, PASS, f"{', '.join(seen)} in [{archs_text}]")


def _device_check(f: Facts, key: str, name: str, evidence_ok: Callable[[dict[str, Any]], str]) -> DoctorCheck:
    if not _torch_devices(f):
        return DoctorCheck(name, SKIP, "no device seen by torch")
    checks = (f.probe or {}).get("checks") or {}
    init = checks.get("init") or {}
    if key != "init" and init and not init.get("ok"):
        return DoctorCheck(name, SKIP, "the device did not initialise")
    entry = checks.get(key)
    if entry is None:
        return DoctorCheck(name, SKIP, "not run")
    if entry.get("ok"):
        return DoctorCheck(name, PASS, evidence_ok(entry))
    err = entry.get("error") or "wrong result"
    return DoctorCheck(name, FAIL, err, _hint(err, "the device computes wrong numbers: report it to the platform"))


def check_init(f: Facts) -> DoctorCheck:
    check = _device_check(f, "init", "CUDA initialisation time",
                          lambda e: f"{e['seconds']:.2f} s to the first tensor on the device "
                                    f"(torch import {(f.probe or {}).get('import_s', 'N/A')} s; bound {INIT_WARN_S:g} s)")
    seconds = (((f.probe or {}).get("checks") or {}).get("init") or {}).get("seconds")
    if check.status == PASS and seconds is not None and seconds > INIT_WARN_S:
        return DoctorCheck(check.name, WARN, check.evidence,
                           "slow driver start: enable persistence mode (`nvidia-smi -pm 1`) or set CUDA_MODULE_LOADING=LAZY")
    return check


def check_kernel(f: Facts) -> DoctorCheck:
    return _device_check(f, "kernel", "a small kernel returns the right numbers",
                         lambda e: f"64x64 matmul + sum matches the CPU (max abs error {e.get('max_abs_err', 0):.2e}, bound 1e-3)")


def check_autocast(f: Facts, label: str) -> DoctorCheck:
    return _device_check(f, f"autocast_{label}", f"{label} autocast runs on the device",
                         lambda e: f"conv + linear forward/backward under autocast, output {e.get('dtype')}")


def check_tensorflow(f: Facts) -> DoctorCheck:
    name = "TensorFlow sees the device"
    if not f.tf_installed:
        return DoctorCheck(name, SKIP, "TensorFlow is not installed (optional)")
    if f.tf is None or f.tf.get("tensorflow_error"):
        err = (f.tf or {}).get("tensorflow_error") or f.tf_error or "no answer"
        return DoctorCheck(name, WARN, f"TensorFlow does not import ({err})", _hint(err))
    gpus = f.tf.get("tensorflow_gpus") or []
    if gpus:
        return DoctorCheck(name, PASS, f"TensorFlow {f.tf.get('tensorflow')}: {len(gpus)} GPU(s)")
    if _torch_devices(f) or _gpus_elsewhere(f):
        return DoctorCheck(name, WARN, f"TensorFlow {f.tf.get('tensorflow')} lists no GPU",
                           "this TensorFlow is a CPU build or does not match the driver: use the image's TensorFlow")
    return DoctorCheck(name, SKIP, f"TensorFlow {f.tf.get('tensorflow')}; no accelerator on this machine")


def check_disk(f: Facts) -> DoctorCheck:
    name = "free disk space"
    if f.disk_free_bytes is None:
        return DoctorCheck(name, WARN, f"cannot read the free space of {f.disk_path}")
    gib = f.disk_free_bytes / 2**30
    evidence = f"{gib:.1f} GiB free of {(f.disk_total_bytes or 0) / 2**30:.1f} GiB at {f.disk_path} " \
               f"(warn below {DISK_WARN_GIB:g} GiB, fail below {DISK_FAIL_GIB:g} GiB)"
    hint = "free space, or run from a larger volume: data sets, checkpoints and the report need several GiB"
    if gib < DISK_FAIL_GIB:
        return DoctorCheck(name, FAIL, evidence, hint)
    if gib < DISK_WARN_GIB:
        return DoctorCheck(name, WARN, evidence, hint)
    return DoctorCheck(name, PASS, evidence)


def check_env(f: Facts) -> DoctorCheck:
    name = "visible-devices variables"
    if not f.env:
        return DoctorCheck(name, PASS, "none set: every device is visible")
    shown = "; ".join(f"{k}={v!r}" for k, v in f.env.items())
    for key in VISIBLE_DEVICE_VARS[:-1]:
        value = f.env.get(key)
        if value is not None and value.strip().lower() in ("", "-1", "none", "nodevfiles", "void"):
            return DoctorCheck(name, WARN, shown, _hint(f"{key} hides every device"))
    return DoctorCheck(name, PASS, shown)


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


def run_checks(probe_timeout: float = PROBE_TIMEOUT_S, on_progress: Callable[[str], None] | None = None) -> list[DoctorCheck]:
    """Every check, on this machine. Takes a few seconds (the torch child); run it off the UI thread."""
    return checks_from(gather(probe_timeout=probe_timeout, on_progress=on_progress))


# ---------------------------------------------------------------- output

def render(checks: list[DoctorCheck]) -> str:
    width = max(len(c.name) for c in checks)
    lines = []
    for c in checks:
        lines.append(f"{c.status:<4}  {c.name:<{width}}  {c.evidence}")
        if c.hint:
            lines.append(f"{'':<4}  {'':<{width}}  hint: {c.hint}")
    counts = {s: sum(1 for c in checks if c.status == s) for s in (PASS, WARN, FAIL, SKIP)}
    lines.append("")
    lines.append("  ".join(f"{n} {s}" for s, n in counts.items()))
    return "\n".join(lines)


def main(as_json: bool = False, out: TextIO | None = None) -> int:
    """Print the checks; exit status 1 when any check FAILs, else 0 (WARN and SKIP are not failures)."""
    out = out or sys.stdout
    try:
        checks = run_checks()
    except KeyboardInterrupt:
        print("cardbench: interrupted", file=sys.stderr)
        return 130
    if as_json:
        out.write(json.dumps([c.to_dict() for c in checks], indent=2) + "\n")
    else:
        out.write(render(checks) + "\n")
    return 1 if any(c.status == FAIL for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main("--json" in sys.argv[1:]))
