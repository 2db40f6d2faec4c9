"""The CPU trap's facts: what is listed outside torch, what torch sees, where a run went. UI-free.

    listed_in(sample)          # `Listed`: the accelerators NVML / the management CLI / the PCI bus list
    doctor_count(checks)       # how many the doctor counted outside torch
    view_of_probe(probe)       # `TorchView`: does torch see one (the telemetry's probe, the doctor's checks)
    view_of_checks(checks)
    facts_of(run)              # `RunFacts`: a report summary, a run record or the live session's run
    device_runs(records)       # the runs whose telemetry is device data (not the CPU runs)

The words built from them are in `tui.cpu_trap.words`; the trap that follows a session in `tui.cpu_trap.trap`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.i18n import say
from workloads.facts.formatting import code
from workloads import protocol
from workloads.hints import hint_for
from workloads.rundir.sample_fields import DEVICES, NAME, SOURCE

CODE = "cpu_while_accelerators_listed"   # the warning event's code: what programs match on
# devices the doctor counts outside torch: the management CLI, NVML, the PCI bus
_COUNT_CHECKS = ("cli.answers", "nvml.loads", "pci.accelerators")
_TOOL_NAMES = {"pci": "the PCI bus", "nvml": "NVML"}


def is_cpu(device: Any) -> bool:
    """Does a start event's device text name the CPU ("cpu", "cpu (x86_64, 16 threads)")?"""
    return isinstance(device, str) and device.strip().lower().startswith("cpu")


def requested_device(args: Iterable[Any] | None) -> str:
    """The ``--device`` a run was given ("" for none or auto: the workload picks the first accelerator)."""
    items = [str(a) for a in args or ()]
    found = ""
    for i, item in enumerate(items):
        if item == "--":
            break  # what follows is a command's own arguments (`cardbench run command -- ...`)
        if item == "--device" and i + 1 < len(items):
            found = items[i + 1]
        elif item.startswith("--device="):
            found = item.split("=", 1)[1]
    found = found.strip().lower()
    return "" if found == "auto" else found


def asked_for_cpu(args: Iterable[Any] | None) -> bool:
    return is_cpu(requested_device(args))


def cpu_only_hint() -> str:
    return hint_for("Torch not compiled with CUDA enabled").en


def mismatch_hint() -> str:
    return hint_for("management CLI lists GPUs but torch sees none").en


# -- what is listed ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Listed:
    """The accelerators something other than torch lists (NVML, the management CLI, the PCI bus)."""

    count: int = 0
    names: tuple[str, ...] = ()    # the model of each one known by name
    tools: tuple[str, ...] = ()    # who lists them: "NVML", "nvidia-smi"...
    seen_by_torch: int = 0         # devices the torch probe reports (listed or not)

    def describe(self, lang: str = "en") -> str:
        """'the 2 accelerators nvidia-smi lists (2x NVIDIA H100 80GB HBM3)'; in Chinese the catalogue's
        cpu_trap.cards_by_tool, which counts no card, with the models quoted."""
        one = "_one" if self.count == 1 else ""
        by = ("cpu_trap.cards_by_tools" if len(self.tools) > 1 else "cpu_trap.cards_by_tool") if self.tools else \
            "cpu_trap.cards"
        text = say(by + one, lang, count=self.count, tools="/".join(self.tools))
        models = _models(self.names)
        if not models:
            return text
        return text + say("cpu_trap.models", lang, models=code(models) if lang == "zh" else models)

    def at_least(self, count: int) -> "Listed":
        return self if count <= self.count else Listed(count, self.names, self.tools, self.seen_by_torch)


def _models(names: Sequence[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n}x {name}" if n > 1 else name for name, n in counts.items())


def _device_dicts(devices: Any) -> list[Mapping[str, Any]]:
    """Device dicts from a `Sample`, its dict, a list of `DeviceSample`s or of their dicts; [] for None."""
    if devices is None:
        return []
    if isinstance(devices, Mapping):
        devices = devices.get(DEVICES) or []
    elif hasattr(devices, "devices"):
        devices = devices.devices
    out: list[Mapping[str, Any]] = []
    for d in devices if isinstance(devices, (list, tuple)) else ():
        if isinstance(d, Mapping):
            out.append(d)
        elif hasattr(d, "to_dict"):
            out.append(d.to_dict())
    return out


def listed_in(devices: Any) -> Listed:
    """What a telemetry snapshot lists, apart from what only torch reports."""
    count, seen, names, tools = 0, 0, [], []
    for d in _device_dicts(devices):
        sources = [s for s in str(d.get(SOURCE) or "").split("+") if s]
        if "torch" in sources:
            seen += 1
        others = [s for s in sources if s != "torch"]
        if sources and not others:
            continue  # only torch reports it: not "listed elsewhere"
        count += 1
        if d.get(NAME):
            names.append(str(d[NAME]))
        for s in others:
            tool = _TOOL_NAMES.get(s, s)
            if tool not in tools:
                tools.append(tool)
    return Listed(count, tuple(names), tuple(tools), seen)


def _checks_module() -> Any:
    from tui.doctor import check  # here, not at import: the doctor package is not needed to run a workload

    return check


def doctor_count(checks: Iterable[Any] | None) -> int:
    """How many accelerators the doctor found outside torch (CLI, NVML, PCI bus); 0 when it did not run."""
    check = _checks_module()
    values = [check.check_value(checks, cid) for cid in _COUNT_CHECKS]
    return int(max((v for v in values if v is not None), default=0))


# -- what torch sees ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TorchView:
    """Does torch see an accelerator: True, False, or None (not known yet); why; what to do."""

    sees: bool | None = None
    evidence: str = ""
    hint: str = ""
    origin: str = ""    # "doctor", "probe", "run", "sample": who said so


def view_of_probe(probe: Any) -> TorchView:
    """The telemetry's torch probe (a `TorchProbe`, or its `ProbeReport`): known once it has answered."""
    if probe is None or getattr(probe, "done", True) is False:
        return TorchView()
    report = getattr(probe, "result", probe)
    if report is None or getattr(report, "torch_error", None) or getattr(report, "devices", None) is None:
        return TorchView()  # torch does not import: the run fails, it does not fall back to the CPU
    if report.devices:
        return TorchView(True, f"torch sees {len(report.devices)} device(s)", origin="probe")
    from tui.telemetry.torch_probe import describe_probe

    cpu_build = not report.cuda and not report.hip and not report.extensions
    return TorchView(False, describe_probe(report, None), cpu_only_hint() if cpu_build else mismatch_hint(), "probe")


def view_of_checks(checks: Iterable[Any] | None) -> TorchView:
    """The doctor's torch.sees_device: PASS/WARN sees, FAIL does not; else not known."""
    check = _checks_module()
    found = check.find_check(checks, "torch.sees_device")
    status = str(check.field_of(found, "status") or "") if found is not None else ""
    if status in (check.PASS, check.WARN):
        return TorchView(True, str(check.field_of(found, "evidence") or ""), origin="doctor")
    if status == check.FAIL:
        return TorchView(False, str(check.field_of(found, "evidence") or ""),
                         str(check.field_of(found, "hint") or "") or mismatch_hint(), "doctor")
    return TorchView()


# -- runs -----------------------------------------------------------------------------------------

@dataclass
class RunFacts:
    """What the trap needs of a run: from a report summary, a run record, or the live session."""

    workload: str
    device: str | None          # the start event's device; None before it (or when it never came)
    args: list[str] = field(default_factory=list)
    warnings: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def on_cpu(self) -> bool:
        return is_cpu(self.device)

    @property
    def asked_for_cpu(self) -> bool:
        return asked_for_cpu(self.args)

    def alarm(self) -> Mapping[str, Any] | None:
        return next((w for w in self.warnings if w.get("code") == CODE), None)


def facts_of(run: Any) -> RunFacts:
    """A `WorkloadSummary` (report), a `RunRecord` (run store) or a `RunFacts`, as `RunFacts`."""
    if isinstance(run, RunFacts):
        return run
    if hasattr(run, "events"):  # a RunRecord
        start = run.start
        args = run.config.get("args") if isinstance(run.config, Mapping) else None
        warnings = [w.to_dict() for w in run.of(protocol.WorkloadWarning)]
        return RunFacts(run.workload, start.device if start is not None else None,
                        [str(a) for a in args] if isinstance(args, list) else [], warnings)
    return RunFacts(str(getattr(run, "workload", "") or ""), getattr(run, "device", None),
                    [str(a) for a in getattr(run, "args", None) or []],
                    [w for w in getattr(run, "warnings", None) or [] if isinstance(w, Mapping)])


def device_runs(records: Sequence[Any]) -> list[Any]:
    """The runs whose telemetry may stand for device data: not those that ran on the CPU.

    For the report's stability table (peak temperature, power, clocks...): a CPU
    run's samples show cards that were idle, not cards that trained. A run whose
    start event is missing is kept (unknown is not evidence of the CPU).
    """
    return [r for r in records if not facts_of(r).on_cpu]

