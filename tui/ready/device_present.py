"""Is the accelerator `cardbench ready --device` names on this machine? Asked of torch before anything runs.

The name's form is `tui.headless.check_device`'s rule; this is the machine's answer: a type torch here has no
available device of (a CUDA build without a driver, `npu` without torch_npu) or an index past the count is what each
run would refuse (`workloads.child.device.resolve`), so the command refuses it once, before the doctor, instead of
six runs failing alike. Torch is asked in the probe child (`tui.telemetry.torch_probe`: the UI process never imports
it), and only for an accelerator named: `auto` and `cpu` need no answer. When the probe itself cannot answer (torch
does not import, no answer in time) the name is let through: the runs then say why, as before.
"""

from __future__ import annotations

from workloads.probe_report import ProbeReport

# what torch's device names mean without asking it: the CPU is always there, auto picks what is
_ALWAYS = ("auto", "cpu")
_WHY_CHARS = 160   # of torch's reason: the line stays a line


def _parts(device: str) -> tuple[str, int | None]:
    """'cuda:1' -> ('cuda', 1); a form `check_device` passed, so the index, where there is one, is digits."""
    kind, _, index = device.lower().partition(":")
    return kind, int(index) if index else None


def absent_from(device: str, report: ProbeReport) -> str | None:
    """Why ``device`` is not on the machine the probe ``report`` describes, in one line; None when it is there (or
    the report cannot tell)."""
    kind, index = _parts(device)
    if kind in _ALWAYS or report.torch_error:
        return None
    found = report.device_types.get(kind)
    available = sorted(name for name, t in report.device_types.items() if t.available) + ["cpu"]
    if found is None or not found.available:
        # its first sentence: torch's CUDA reason runs on to a download address
        why = f" ({found.error.split('. ')[0][:_WHY_CHARS]})" if found is not None and found.error else ""
        return f"--device {device!r} is not available on this machine{why}; torch here has: {', '.join(available)}"
    if index is not None and found.count is not None and index >= found.count:
        return (f"--device {device!r} does not exist: this machine has {found.count} {kind} device(s), numbered "
                f"from 0")
    return None


def absent(device: str | None) -> str | None:
    """Why ``device`` is not on this machine, asking torch (seconds: the probe imports it) only for an accelerator
    named; None when it is there, when none is named, or when torch cannot be asked."""
    if device is None or _parts(device)[0] in _ALWAYS:
        return None
    from tui.telemetry.torch_probe import run_probe   # lazy: a child process, only for an accelerator named

    report, _why = run_probe()
    return absent_from(device, report) if report is not None else None
