"""The doctor's verdicts: pure functions of `Facts`, so every verdict and hint is testable without a GPU.

Each check is PASS / WARN / FAIL / SKIP with its evidence, a one-line hint, its
stable id (``TITLES`` holds the ids and names), its number where it has one, and
the Chinese of cardbench's own words (``zh``; quoted tool output stays as written).
"""

from __future__ import annotations

import re
from typing import Callable

from tui.doctor.check import FAIL, PASS, SKIP, TITLES, WARN, DoctorCheck
from tui.doctor.facts import VISIBLE_DEVICE_VARS, Facts
from tui.doctor.zh import HINTS_ZH
from tui.report.zh import CHECK_TITLES
from tui.formatting import NA, duration, nbytes
from tui.telemetry import vendors
from workloads.hints import hint_for
from workloads.probe_report import DeviceCheck, DeviceChecks, ProbeDevice

NVML_EXPECTED = ("libnvidia-ml.so is missing although the PCI bus shows an NVIDIA card: the driver's user-space "
                 "part is not in this image; install the driver's utilities, or use the platform's image")
NVML_ABSENT = ("readings come from the CLI (slower, fewer fields): install the vendor's NVML-compatible library "
               "if it ships one")
DISK_WARN_GIB = 20.0   # ResNet-50 data, checkpoints, GPT-2 weights and the report need a few GiB each
DISK_FAIL_GIB = 2.0
INIT_WARN_S = 20.0     # a healthy driver creates a context in well under this (persistence mode off: ~1-10 s)


def _check(check_id: str, status: str, evidence: str, hint: str = "", value: float | None = None,
           unit: str | None = None, zh: str | None = None, zh_hint: str | None = None) -> DoctorCheck:
    """A verdict; ``zh``: the evidence in Chinese where it is cardbench's sentence (None: quoted tool output)."""
    words = {"name": CHECK_TITLES[check_id], "evidence": zh, "hint": zh_hint or HINTS_ZH.get(hint)}
    return DoctorCheck(TITLES[check_id], status, evidence, hint, id=check_id,
                       value=float(value) if value is not None else None, unit=unit if value is not None else None,
                       zh={k: v for k, v in words.items() if v})


def _hint(text: str | None, fallback: str = "") -> str:
    return (hint_for(text or "") or fallback) if text else fallback


def _gpus_elsewhere(f: Facts) -> int:
    """How many accelerators something other than torch sees (CLI, NVML, PCI bus)."""
    return max(f.cli_gpu_count or 0, f.nvml_count or 0, len(f.pci_vendors))


def _listed_elsewhere(f: Facts) -> tuple[str, int] | None:
    """(who, how many) for the cards a management CLI or NVML lists; None when neither lists any."""
    if f.cli_gpu_count:
        return f.cli_name or "the management CLI", f.cli_gpu_count
    if f.nvml_count:
        return "NVML", f.nvml_count
    return None


NO_DEVICE, NO_DEVICE_ZH = "no device seen by torch", "torch 没有看到设备"


def _torch_devices(f: Facts) -> list[ProbeDevice]:
    return list(f.probe.devices) if f.probe is not None else []


def check_cli(f: Facts) -> DoctorCheck:
    cid = "cli.answers"
    if f.cli_name is None:
        tried = ", ".join(vendors.names())
        if f.pci_vendors:
            shown = ", ".join(f.pci_vendors)
            return _check(cid, WARN, f"none on PATH ({tried}); the PCI bus shows {shown}",
                          "the image lacks the vendor's management tool: install the driver's utilities package",
                          zh=f"PATH 中没有管理工具（{tried}）；PCI 总线上有 {shown}")
        return _check(cid, SKIP, f"none on PATH ({tried}); no accelerator on the PCI bus",
                      zh=f"PATH 中没有管理工具（{tried}）；PCI 总线上没有加速卡")
    if not f.cli_ok:
        return _check(cid, FAIL, f.cli_error or f"{f.cli_name} failed", _hint(f.cli_error,
                      "the driver does not answer: check `dmesg` for errors, and that the driver is loaded"))
    first = next((line.strip() for line in f.cli_output.splitlines() if line.strip()), "")
    count = f" lists {f.cli_gpu_count} GPU(s);" if f.cli_gpu_count is not None else ""
    count_zh = f" 列出 {f.cli_gpu_count} 块 GPU；" if f.cli_gpu_count is not None else " "
    return _check(cid, PASS, f"{f.cli_name}{count} {first[:120]}".strip(), value=f.cli_gpu_count, unit="devices",
                  zh=f"{f.cli_name}{count_zh}{first[:120]}".strip())


def check_nvml(f: Facts) -> DoctorCheck:
    cid = "nvml.loads"
    if f.nvml_ok:
        evidence = f"{f.nvml_count} device(s), driver {f.nvml_driver or NA}"
        evidence_zh = f"{f.nvml_count} 个设备，驱动 {f.nvml_driver or NA}"
        if f.nvml_errors:
            errors = "; ".join(f.nvml_errors)
            return _check(cid, FAIL, f"{evidence}; {errors}", _hint(f.nvml_errors[0]), f.nvml_count, "devices",
                          zh=f"{evidence_zh}；{errors}")
        return _check(cid, PASS, evidence, value=f.nvml_count, unit="devices", zh=evidence_zh)
    error = f.nvml_error
    if "NVIDIA" in f.pci_vendors:  # an NVIDIA card on the bus: its driver ships NVML, so a missing one is a fault
        hint = _hint(error)
        if hint == hint_for("NVMLError_LibraryNotFound"):  # that hint excuses non-NVIDIA cards: not this one
            hint = NVML_EXPECTED
        return _check(cid, FAIL, f"not loaded ({error}); the PCI bus shows an NVIDIA card",
                      hint, zh=f"未能加载（{error}）；PCI 总线上有 NVIDIA 卡")
    if f.cli_name in vendors.names(vendors.SMI_CSV):
        # a compatibility layer's nvidia-smi-like CLI need not come with an NVML-compatible library
        n = f.cli_gpu_count
        listed, listed_zh = (f"lists {n} card(s)", f"列出 {n} 块卡") if n else ("lists no card", "没有列出卡")
        bus = ", ".join(sorted(set(f.pci_vendors)))
        return _check(cid, WARN, f"not loaded ({error}); {f.cli_name} {listed}, the PCI bus shows {bus or 'no card'}",
                      NVML_ABSENT, zh=f"未能加载（{error}）；{f.cli_name} {listed_zh}，PCI 总线上"
                                      f"{'有 ' + bus if bus else '没有卡'}")
    others = ", ".join(sorted(set(f.pci_vendors))) or "no accelerator"
    others_zh = ", ".join(sorted(set(f.pci_vendors))) or "没有加速卡"
    return _check(cid, SKIP, f"not loaded ({error}) (expected here: the PCI bus shows {others})",
                  zh=f"未能加载（{error}）（此处属正常：PCI 总线上{'有 ' if f.pci_vendors else ''}{others_zh}）")


def check_pci(f: Facts) -> DoctorCheck:
    cid = "pci.accelerators"
    if not f.pci_vendors:
        # no value: an empty bus and a container without sysfs look the same from here
        listed = _listed_elsewhere(f)
        if listed:
            # the cards exist (a tool lists them): the bus just cannot name their maker, so nothing passed here
            who, n = listed
            return _check(cid, SKIP, f"no accelerator in /sys/bus/pci, while {who} lists {n}: a card behind a "
                          "compatibility layer, or a container without sysfs, keeps its maker off the bus",
                          zh=f"/sys/bus/pci 中没有加速卡，而 {who} 列出 {n} 块：兼容层后面的卡，"
                             "或没有 sysfs 的容器，不会在总线上显示厂商")
        return _check(cid, WARN, "none found in /sys/bus/pci (no GPU here, or no sysfs in this container)",
                      "this machine shows no accelerator: was a GPU instance rented?",
                      zh="/sys/bus/pci 中没有找到（本机没有 GPU，或此容器没有 sysfs）")
    counts: dict[str, int] = {}
    for v in f.pci_vendors:
        counts[v] = counts.get(v, 0) + 1
    return _check(cid, PASS, ", ".join(f"{n}x {v}" for v, n in counts.items()), value=len(f.pci_vendors),
                  unit="devices", zh="，".join(f"{n} 块 {v}" for v, n in counts.items()))


def check_torch_import(f: Facts) -> DoctorCheck:
    cid = "torch.imports"
    p = f.probe
    if p is None:
        return _check(cid, FAIL, f.probe_error or "the torch probe gave no answer", _hint(f.probe_error),
                      zh=None if f.probe_error else "torch 探测子进程没有应答")
    if p.torch_error:
        return _check(cid, FAIL, p.torch_error, _hint(p.torch_error, "install the image's PyTorch into this Python"))
    built = [f"CUDA {p.cuda}" if p.cuda else "", f"ROCm/HIP {p.hip}" if p.hip else ""]
    built_text = ", ".join(b for b in built if b)
    ext_text = "".join(f"; {k}: {v}" for k, v in p.extensions.items())
    broken = [v for v in p.extensions.values() if v != "loaded"]
    evidence = f"torch {p.torch} built for {built_text or 'CPU only'}, import {duration(p.import_s)}{ext_text}"
    zh = f"torch {p.torch}，构建目标 {built_text or '仅 CPU'}，导入耗时 {duration(p.import_s)}{ext_text}"
    if broken:
        return _check(cid, WARN, evidence, _hint(broken[0], "the vendor's torch extension fails to import"),
                      p.import_s, "s", zh=zh)
    return _check(cid, PASS, evidence, value=p.import_s, unit="s", zh=zh)


def check_torch_sees(f: Facts) -> DoctorCheck:
    cid = "torch.sees_device"
    if f.probe is None or f.probe.torch_error:
        return _check(cid, SKIP, "torch did not import", zh="torch 未能导入")
    p = f.probe
    devices = _torch_devices(f)
    elsewhere = _gpus_elsewhere(f)
    seen = {"value": len(devices), "unit": "devices"}
    if devices:
        names = "; ".join(f"{d.label} {d.name or NA} (capability {d.target or NA})" for d in devices)
        names_zh = "；".join(f"{d.label} {d.name or NA}（计算能力 {d.target or NA}）" for d in devices)
        evidence = f"{len(devices)} device(s): {names}"
        zh = f"{len(devices)} 个设备：{names_zh}"
        if elsewhere > len(devices) and not f.env.get("CUDA_VISIBLE_DEVICES"):
            return _check(cid, WARN, f"{evidence}; but {elsewhere} on the bus/CLI",
                          "some devices are hidden or failed to initialise: check the visible-devices variables and dmesg",
                          **seen, zh=f"{zh}；但总线/命令行工具上有 {elsewhere} 个")
        return _check(cid, PASS, evidence, **seen, zh=zh)
    why = p.device_type_error()
    why_en, why_zh = (f" ({why})", f"（{why}）") if why else ("", "")
    if elsewhere == 0:
        return _check(cid, SKIP, "no accelerator on this machine" + why_en, **seen, zh="本机没有加速卡" + why_zh)
    if not p.cuda and not p.hip and not p.extensions:
        return _check(cid, FAIL, f"{elsewhere} accelerator(s) present, but this torch is a CPU-only build",
                      _hint("Torch not compiled with CUDA enabled"), **seen,
                      zh=f"存在 {elsewhere} 块加速卡，但此 torch 是仅 CPU 的构建")
    evidence = f"management CLI/NVML/PCI see {elsewhere} accelerator(s), torch sees none" + why_en
    return _check(cid, FAIL, evidence, _hint("management CLI lists GPUs but torch sees none"), **seen,
                  zh=f"管理工具/NVML/PCI 看到 {elsewhere} 块加速卡，torch 一块也看不到" + why_zh)


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
        return _check(cid, SKIP, NO_DEVICE, zh=NO_DEVICE_ZH)
    problems, problems_zh, seen = [], [], []
    for d in devices:
        archs = f.probe.archs(d.type)
        if not d.target or not archs:
            continue
        seen.append(f"{d.label} {d.target}")
        if not _arch_ok(d.target, archs):
            problems.append(f"{d.label} is {d.target}, build has {' '.join(archs)}")
            problems_zh.append(f"{d.label} 为 {d.target}，构建包含 {' '.join(archs)}")
    if problems:
        return _check(cid, FAIL, "; ".join(problems), _hint("no kernel image is available"), zh="；".join(problems_zh))
    if not seen:
        return _check(cid, SKIP, "this device type reports no arch list (vendor layer)",
                      zh="此设备类型不报告架构列表（厂商兼容层）")
    archs_text = "; ".join(f"{k}: {' '.join(v)}" for k, v in f.probe.arch_list.items() if isinstance(v, list))
    return _check(cid, PASS, f"{', '.join(seen)} in [{archs_text}]", zh=f"{', '.join(seen)} 在 [{archs_text}] 中")


def _device_check(f: Facts, cid: str, pick: Callable[[DeviceChecks], DeviceCheck | None],
                  evidence_ok: Callable[[DeviceCheck], tuple[str, str]]) -> tuple[DoctorCheck, DeviceCheck | None]:
    """One of the probe's tests on the device -> a verdict, and the test's record for the caller's value.

    ``evidence_ok`` gives a passed test's evidence in English and in Chinese.
    """
    if not _torch_devices(f) or f.probe is None:
        return _check(cid, SKIP, NO_DEVICE, zh=NO_DEVICE_ZH), None
    checks = f.probe.checks
    init = checks.init if checks is not None else None
    if cid != "device.init" and init is not None and not init.ok:
        return _check(cid, SKIP, "the device did not initialise", zh="设备未能初始化"), None
    entry = pick(checks) if checks is not None else None
    if entry is None:
        return _check(cid, SKIP, "not run", zh="未运行"), None
    if entry.ok:
        evidence, zh = evidence_ok(entry)
        return _check(cid, PASS, evidence, zh=zh), entry
    err = entry.error or "wrong result"
    return _check(cid, FAIL, err, _hint(err, "the device computes wrong numbers: report it to the platform"),
                  zh=None if entry.error else "结果错误"), entry


def check_init(f: Facts) -> DoctorCheck:
    import_s = duration(f.probe.import_s if f.probe is not None else None)
    check, entry = _device_check(
        f, "device.init", lambda c: c.init,
        lambda e: (f"{duration(e.seconds)} to the first tensor on the device "
                   f"(torch import {import_s}; bound {duration(INIT_WARN_S)})",
                   f"{duration(e.seconds)} 得到设备上的第一个张量（torch 导入 {import_s}；上限 {duration(INIT_WARN_S)}）"))
    if check.status != PASS or entry is None or entry.seconds is None:
        return check  # a failed start's seconds are the time to the error, not an initialisation time
    status, hint = PASS, ""
    if entry.seconds > INIT_WARN_S:
        status = WARN
        hint = "slow driver start: enable persistence mode (`nvidia-smi -pm 1`) or set CUDA_MODULE_LOADING=LAZY"
    return _check(check.id, status, check.evidence, hint, entry.seconds, "s", zh=check.zh.get("evidence"))


def check_kernel(f: Facts) -> DoctorCheck:
    check, entry = _device_check(
        f, "device.kernel", lambda c: c.kernel,
        lambda e: (f"64x64 matmul + sum matches the CPU (max abs error {e.max_abs_err or 0:.2e}, bound 1e-3)",
                   f"64x64 矩阵乘 + 求和与 CPU 结果一致（最大绝对误差 {e.max_abs_err or 0:.2e}，上限 1e-3）"))
    if entry is None or entry.max_abs_err is None:
        return check
    # a difference of plain numbers: no unit
    return _check(check.id, check.status, check.evidence, check.hint, entry.max_abs_err, zh=check.zh.get("evidence"))


def check_autocast(f: Facts, label: str) -> DoctorCheck:
    check, _entry = _device_check(
        f, f"device.autocast.{label}", lambda c: c.autocast(label),
        lambda e: (f"conv + linear forward/backward under autocast, output {e.dtype}",
                   f"autocast 下卷积 + 全连接的前向/反向，输出 {e.dtype}"))
    return check


def check_tensorflow(f: Facts) -> DoctorCheck:
    cid = "tensorflow.sees_device"
    if not f.tf_installed:
        return _check(cid, SKIP, "TensorFlow is not installed (optional)", zh="未安装 TensorFlow（可选）")
    if f.tf is None or f.tf.tensorflow_error:
        err = (f.tf.tensorflow_error if f.tf is not None else None) or f.tf_error or "no answer"
        return _check(cid, WARN, f"TensorFlow does not import ({err})", _hint(err), zh=f"TensorFlow 无法导入（{err}）")
    gpus = f.tf.tensorflow_gpus
    seen = {"value": len(gpus), "unit": "devices"}
    version = f.tf.tensorflow
    if gpus:
        return _check(cid, PASS, f"TensorFlow {version}: {len(gpus)} GPU(s)", **seen,
                      zh=f"TensorFlow {version}：{len(gpus)} 块 GPU")
    if _torch_devices(f) or _gpus_elsewhere(f):
        return _check(cid, WARN, f"TensorFlow {version} lists no GPU",
                      "this TensorFlow is a CPU build or does not match the driver: use the image's TensorFlow", **seen,
                      zh=f"TensorFlow {version} 没有列出 GPU")
    return _check(cid, SKIP, f"TensorFlow {version}; no accelerator on this machine", **seen,
                  zh=f"TensorFlow {version}；本机没有加速卡")


def check_disk(f: Facts) -> DoctorCheck:
    cid = "disk.free"
    if f.disk_free_bytes is None:
        return _check(cid, WARN, f"cannot read the free space of {f.disk_path}", zh=f"无法读取 {f.disk_path} 的可用空间")
    gib = f.disk_free_bytes / 2**30
    free, total = nbytes(f.disk_free_bytes), nbytes(f.disk_total_bytes)
    evidence = f"{free} free of {total} at {f.disk_path} " \
               f"(warn below {DISK_WARN_GIB:g} GiB, fail below {DISK_FAIL_GIB:g} GiB)"
    zh = f"{f.disk_path} 可用 {free}，共 {total}（低于 {DISK_WARN_GIB:g} GiB 警告，低于 {DISK_FAIL_GIB:g} GiB 失败）"
    hint = "free space, or run from a larger volume: data sets, checkpoints and the report need several GiB"
    status = FAIL if gib < DISK_FAIL_GIB else WARN if gib < DISK_WARN_GIB else PASS
    return _check(cid, status, evidence, hint if status != PASS else "", round(gib, 2), "GiB", zh=zh)


def check_env(f: Facts) -> DoctorCheck:
    cid = "env.visible_devices"
    if not f.env:
        return _check(cid, PASS, "none set: every device is visible", zh="均未设置：所有设备可见")
    shown = "; ".join(f"{k}={v!r}" for k, v in f.env.items())
    for key in VISIBLE_DEVICE_VARS[:-1]:  # the last, CUDA_DEVICE_ORDER, orders devices and hides none
        value = f.env.get(key)
        if value is not None and value.strip().lower() in ("", "-1", "none", "nodevfiles", "void"):
            return _check(cid, WARN, shown, _hint(f"{key} hides every device"))
    return _check(cid, PASS, shown)
