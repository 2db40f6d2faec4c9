"""The doctor's verdicts: pure functions of `Facts`, so every verdict and hint is testable without a GPU.

Each check is PASS / WARN / FAIL / SKIP with its evidence, a one-line hint, its
stable id (``TITLES`` holds the ids and names), its number where it has one, and
cardbench's own words as catalogue messages (``words``, said when shown; quoted tool output stays as written).
The words are the catalogue's (`workloads.catalogue.doctor`): a check says ``text(id, ...)``, both languages at once.
"""

from __future__ import annotations

import re
from typing import Callable

from tui.doctor.check import FAIL, PASS, SKIP, TITLES, WARN, DoctorCheck
from tui.doctor.facts import VISIBLE_DEVICE_VARS, Facts
from tui.i18n import joined, message_id_of, say
from workloads.facts.formatting import format_bytes, format_duration
from workloads.facts.missing import NA
from tui.i18n.voice import listed, quoted
from tui.telemetry import vendors
from workloads.catalogue import Message, message
from workloads.hints import hint_for
from workloads.probe_report import DeviceCheck, DeviceChecks, ProbeDevice
from workloads.spec import Text

DISK_WARN_GIB = 20.0   # ResNet-50 data, checkpoints, GPT-2 weights and the report need a few GiB each
DISK_FAIL_GIB = 2.0
INIT_WARN_S = 20.0     # a healthy driver creates a context in well under this (persistence mode off: ~1-10 s)


def _check(check_id: str, status: str, evidence: Text | Message | str, hint: Text | Message | str = "",
           value: float | None = None, unit: str | None = None) -> DoctorCheck:
    """A verdict. ``evidence`` and ``hint``: a catalogue `Message` where the words are cardbench's (said in the
    reader's language where shown; a `Text` where a sentence is put together from two), a plain string
    where they are quoted tool output (no Chinese: the report quotes it) or a hint of `workloads.hints` (its message
    found by its English)."""
    if isinstance(hint, str) and hint:
        hint = _hint_message(hint)
    words = {key: said for key, said in (("evidence", evidence), ("hint", hint)) if isinstance(said, (Text, Message))}
    hint_id = hint.id if isinstance(hint, Message) and hint.id.startswith("hint.") else ""
    return DoctorCheck(TITLES[check_id], status, _en(evidence), _en(hint), id=check_id, hint_id=hint_id,
                       value=float(value) if value is not None else None, unit=unit if value is not None else None,
                       words=words)


def _hint_message(hint: str) -> Message | str:
    """A hint of `workloads.hints` given as its English -> its catalogue message (the English as it is if none)."""
    key = message_id_of(hint, "hint.")
    return Message(key) if key else hint


def _took(seconds: float | None) -> Text:
    """A duration in each language's units ('1.84 s', and the catalogue's report.unit.s in Chinese)."""
    return Text(format_duration(seconds), format_duration(seconds, "zh"))


def _en(said: Text | Message | str) -> str:
    return said.en if isinstance(said, (Text, Message)) else said


def _same(check: DoctorCheck) -> Text | Message | str:
    """A check's evidence as it was said, to make it again with a value or another status."""
    return check.words.get("evidence") or check.evidence


def _hint(error: str | None, fallback: Text | str = "") -> Text | Message | str:
    """The hint of `workloads.hints` for an error's text, else ``fallback``."""
    return (hint_for(error or "") or fallback) if error else fallback


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



def _torch_devices(f: Facts) -> list[ProbeDevice]:
    return list(f.probe.devices) if f.probe is not None else []


def check_cli(f: Facts) -> DoctorCheck:
    cid = "cli.answers"
    if f.cli_name is None:
        tried = listed(quoted(name) for name in vendors.names())   # tool names: code spans in Chinese
        if f.pci_vendors:
            shown = listed(f.pci_vendors)
            return _check(cid, WARN, message("doctor.cli.missing_on_bus", tried=tried, shown=shown),
                          message("hint.doctor.no_cli"))
        return _check(cid, SKIP, message("doctor.cli.missing", tried=tried))
    if not f.cli_ok:
        return _check(cid, FAIL, f.cli_error or f"{f.cli_name} failed",
                      _hint(f.cli_error, message("hint.doctor.driver_silent")))
    # the first line with words, its box edges and padding off: a vendor table opens with a border ('+-----+')
    first = next((" ".join(line.strip("| \t").split()) for line in f.cli_output.splitlines()
                  if line.strip("+-=|: \t")), "")[:120]
    if f.cli_gpu_count is None:  # the CLI's own first line, quoted
        said = f"{f.cli_name} {first}".strip()
        return _check(cid, PASS, Text(said, quoted(said)("zh")))
    said = message("doctor.cli.lists", cli=quoted(f.cli_name), n=f.cli_gpu_count, first=quoted(first) if first else "")
    return _check(cid, PASS, Text(said.en.strip(), said.zh.strip()), value=f.cli_gpu_count, unit="devices")


def check_nvml(f: Facts) -> DoctorCheck:
    cid = "nvml.loads"
    if f.nvml_ok:
        seen = {"n": f.nvml_count, "driver": f.nvml_driver or NA}
        if f.nvml_errors:
            errors = listed((quoted(e) for e in f.nvml_errors), comma=False)
            return _check(cid, FAIL, message("doctor.nvml.loaded_errors", **seen, errors=errors), _hint(f.nvml_errors[0]),
                          f.nvml_count, "devices")
        return _check(cid, PASS, message("doctor.nvml.loaded", **seen), value=f.nvml_count, unit="devices")
    error = quoted(f.nvml_error or NA)   # the library's own words
    if "NVIDIA" in f.pci_vendors:  # an NVIDIA card on the bus: its driver ships NVML, so a missing one is a fault
        hint = _hint(f.nvml_error)
        if hint == hint_for("NVMLError_LibraryNotFound"):  # that hint excuses non-NVIDIA cards: not this one
            hint = message("hint.doctor.nvml_expected")
        return _check(cid, FAIL, message("doctor.nvml.missing_nvidia", error=error), hint)
    if f.cli_name in vendors.names(vendors.SMI_CSV):
        # a compatibility layer's nvidia-smi-like CLI need not come with an NVML-compatible library
        n = f.cli_gpu_count
        said = message("doctor.nvml.cli_lists", n=n) if n else message("doctor.nvml.cli_lists_none")
        bus = listed(sorted(set(f.pci_vendors))) if f.pci_vendors else ""
        shows = message("doctor.bus.shows", bus=bus) if bus else message("doctor.bus.no_card")
        return _check(cid, WARN, message("doctor.nvml.missing_compat", error=error, cli=quoted(f.cli_name), listed=said,
                                      bus=shows),
                      message("hint.doctor.nvml_absent"))
    others = listed(sorted(set(f.pci_vendors))) if f.pci_vendors else ""
    shows = message("doctor.bus.shows", bus=others) if others else message("doctor.bus.no_accelerator")
    return _check(cid, SKIP, message("doctor.nvml.expected", error=error, bus=shows))


def check_pci(f: Facts) -> DoctorCheck:
    cid = "pci.accelerators"
    if not f.pci_vendors:
        # no value: an empty bus and a container without sysfs look the same from here
        elsewhere = _listed_elsewhere(f)
        if elsewhere:
            # the cards exist (a tool lists them): the bus just cannot name their maker, so nothing passed here
            who, n = elsewhere
            return _check(cid, SKIP, message("doctor.pci.listed_elsewhere", who=who, n=n))
        return _check(cid, WARN, message("doctor.pci.none"), message("hint.doctor.no_accelerator"))
    counts: dict[str, int] = {}
    for v in f.pci_vendors:
        counts[v] = counts.get(v, 0) + 1
    shown = listed(message("doctor.pci.count", n=n, vendor=v) for v, n in counts.items())
    return _check(cid, PASS, shown, value=len(f.pci_vendors), unit="devices")


def check_torch_import(f: Facts) -> DoctorCheck:
    cid = "torch.imports"
    p = f.probe
    if p is None:
        return _check(cid, FAIL, f.probe_error or message("doctor.torch.no_answer"), _hint(f.probe_error))
    if p.torch_error:
        return _check(cid, FAIL, p.torch_error, _hint(p.torch_error, message("hint.doctor.install_torch")))
    built = [f"CUDA {p.cuda}" if p.cuda else "", f"ROCm/HIP {p.hip}" if p.hip else ""]
    built_text = listed(b for b in built if b) if any(built) else ""
    ext_text = "".join(f"; {k}: {v}" for k, v in p.extensions.items())
    broken = [v for v in p.extensions.values() if v != "loaded"]
    evidence = message("doctor.torch.imported", version=p.torch, built=built_text or message("doctor.torch.cpu_only"),
                    seconds=_took(p.import_s), extensions=ext_text)
    if broken:
        return _check(cid, WARN, evidence, _hint(broken[0], message("hint.doctor.extension")), p.import_s, "s")
    return _check(cid, PASS, evidence, value=p.import_s, unit="s")


def check_torch_sees(f: Facts) -> DoctorCheck:
    cid = "torch.sees_device"
    if f.probe is None or f.probe.torch_error:
        return _check(cid, SKIP, message("doctor.torch.not_imported"))
    p = f.probe
    devices = _torch_devices(f)
    elsewhere = _gpus_elsewhere(f)
    seen = {"value": len(devices), "unit": "devices"}
    if devices:
        def names(lang: str) -> str:
            return joined((say("doctor.torch.device", lang, label=d.label, name=d.name or NA, target=d.target or NA)
                           for d in devices), lang)
        if elsewhere > len(devices) and not f.env.get("CUDA_VISIBLE_DEVICES"):
            return _check(cid, WARN, message("doctor.torch.devices_hidden", n=len(devices), names=names,
                                          elsewhere=elsewhere), message("hint.doctor.devices_hidden"), **seen)
        return _check(cid, PASS, message("doctor.torch.devices", n=len(devices), names=names), **seen)
    why = p.device_type_error()
    why_said = message("doctor.torch.why", why=quoted(why)) if why else ""   # torch's own words
    if elsewhere == 0:
        return _check(cid, SKIP, message("doctor.torch.no_accelerator", why=why_said), **seen)
    if not p.cuda and not p.hip and not p.extensions:
        return _check(cid, FAIL, message("doctor.torch.cpu_build", n=elsewhere),
                      _hint("Torch not compiled with CUDA enabled"), **seen)
    return _check(cid, FAIL, message("doctor.torch.sees_none", n=elsewhere, why=why_said),
                  _hint("management CLI lists GPUs but torch sees none"), **seen)


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
        return _check(cid, SKIP, message("doctor.no_device"))
    problems, seen = [], []
    for d in devices:
        archs = f.probe.archs(d.type)
        if not d.target or not archs:
            continue
        seen.append(f"{d.label} {d.target}")
        if not _arch_ok(d.target, archs):
            problems.append(message("doctor.arch.mismatch", label=d.label, target=d.target, archs=" ".join(archs)))
    if problems:
        return _check(cid, FAIL, listed(problems, comma=False), _hint("no kernel image is available"))
    if not seen:
        return _check(cid, SKIP, message("doctor.arch.unreported"))
    archs_text = "; ".join(f"{k}: {' '.join(v)}" for k, v in f.probe.arch_list.items() if isinstance(v, list))
    return _check(cid, PASS, message("doctor.arch.covered", seen=listed(seen), archs=archs_text))


def _device_check(f: Facts, cid: str, pick: Callable[[DeviceChecks], DeviceCheck | None],
                  evidence_ok: Callable[[DeviceCheck], Text]) -> tuple[DoctorCheck, DeviceCheck | None]:
    """One of the probe's tests on the device -> a verdict, and the test's record for the caller's value.

    ``evidence_ok`` gives a passed test's evidence in English and in Chinese.
    """
    if not _torch_devices(f) or f.probe is None:
        return _check(cid, SKIP, message("doctor.no_device")), None
    checks = f.probe.checks
    init = checks.init if checks is not None else None
    if cid != "device.init" and init is not None and not init.ok:
        return _check(cid, SKIP, message("doctor.device.not_initialised")), None
    entry = pick(checks) if checks is not None else None
    if entry is None:
        return _check(cid, SKIP, message("doctor.device.not_run")), None
    if entry.ok:
        return _check(cid, PASS, evidence_ok(entry)), entry
    err = entry.error or message("doctor.device.wrong_result")
    return _check(cid, FAIL, err, _hint(_en(err), message("hint.doctor.wrong_numbers"))), entry


def check_init(f: Facts) -> DoctorCheck:
    import_s = _took(f.probe.import_s if f.probe is not None else None)
    check, entry = _device_check(
        f, "device.init", lambda c: c.init,
        lambda e: message("doctor.init.seconds", seconds=_took(e.seconds), import_s=import_s,
                       bound=_took(INIT_WARN_S)))
    if check.status != PASS or entry is None or entry.seconds is None:
        return check  # a failed start's seconds are the time to the error, not an initialisation time
    slow = entry.seconds > INIT_WARN_S
    return _check(check.id, WARN if slow else PASS, _same(check), message("hint.doctor.slow_init") if slow else "",
                  entry.seconds, "s")


def check_kernel(f: Facts) -> DoctorCheck:
    check, entry = _device_check(
        f, "device.kernel", lambda c: c.kernel,
        lambda e: message("doctor.kernel.matches", error=f"{e.max_abs_err or 0:.2e}"))
    if entry is None or entry.max_abs_err is None:
        return check
    # a difference of plain numbers: no unit
    return _check(check.id, check.status, _same(check), check.words.get("hint") or check.hint, entry.max_abs_err)


def check_autocast(f: Facts, label: str) -> DoctorCheck:
    check, _entry = _device_check(
        f, f"device.autocast.{label}", lambda c: c.autocast(label),
        lambda e: message("doctor.autocast.runs", dtype=e.dtype))
    return check


def check_tensorflow(f: Facts) -> DoctorCheck:
    cid = "tensorflow.sees_device"
    if not f.tf_installed:
        return _check(cid, SKIP, message("doctor.tensorflow.absent"))
    if f.tf is None or f.tf.tensorflow_error:
        err = (f.tf.tensorflow_error if f.tf is not None else None) or f.tf_error or "no answer"
        return _check(cid, WARN, message("doctor.tensorflow.broken", error=quoted(err)), _hint(err))
    gpus = f.tf.tensorflow_gpus
    seen = {"value": len(gpus), "unit": "devices"}
    version = f.tf.tensorflow
    if gpus:
        return _check(cid, PASS, message("doctor.tensorflow.gpus", version=version, n=len(gpus)), **seen)
    if _torch_devices(f) or _gpus_elsewhere(f):
        return _check(cid, WARN, message("doctor.tensorflow.no_gpu", version=version), message("hint.doctor.tensorflow"),
                      **seen)
    return _check(cid, SKIP, message("doctor.tensorflow.no_accelerator", version=version), **seen)


def check_disk(f: Facts) -> DoctorCheck:
    cid = "disk.free"
    if f.disk_free_bytes is None:
        return _check(cid, WARN, message("doctor.disk.unreadable", path=quoted(f.disk_path)))
    gib = f.disk_free_bytes / 2**30
    free, total = format_bytes(f.disk_free_bytes), format_bytes(f.disk_total_bytes)
    evidence = message("doctor.disk.free", free=free, total=total, path=quoted(f.disk_path), warn=f"{DISK_WARN_GIB:g}",
                    fail=f"{DISK_FAIL_GIB:g}")
    status = FAIL if gib < DISK_FAIL_GIB else WARN if gib < DISK_WARN_GIB else PASS
    return _check(cid, status, evidence, message("hint.doctor.disk") if status != PASS else "", round(gib, 2), "GiB")


def check_env(f: Facts) -> DoctorCheck:
    cid = "env.visible_devices"
    if not f.env:
        return _check(cid, PASS, message("doctor.env.none"))
    shown = "; ".join(f"{k}={v!r}" for k, v in f.env.items())
    for key in VISIBLE_DEVICE_VARS[:-1]:  # the last, CUDA_DEVICE_ORDER, orders devices and hides none
        value = f.env.get(key)
        if value is not None and value.strip().lower() in ("", "-1", "none", "nodevfiles", "void"):
            return _check(cid, WARN, shown, _hint(f"{key} hides every device"))
    return _check(cid, PASS, shown)
