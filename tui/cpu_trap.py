"""Work that ran on the CPU while accelerators are listed: found, said once and loudly, UI-free.

The trial's worst case: the management CLI lists the rented cards, but the image's
PyTorch cannot use them, so a workload started with ``--device auto`` (or no
``--device``) quietly trains on the CPU. Everything downstream must say so: the
launcher and the suite before the run, a ``warning`` event in the run (so its
events.jsonl, run.log, state line and the report's problems carry it), the first
line of the report, and the headless export's exit status.

    trap = CpuTrap()                      # the run session holds one: `session.cpu_trap`
    trap.see_sample(sample)               # what NVML / the CLI list, and which of them torch reports
    trap.see_checks(checks)               # the doctor: torch.sees_device, the device counts, its hint
    trap.see_probe(probe)                 # the telemetry's torch probe, once it has answered
    trap.before_run("resnet50", args)     # the warning before a run, or None
    trap.start_run("resnet50", args)
    warning = trap.see_event(event)       # the run's warning event (once), or None: the session records it
    headline(summaries, env_devices, checks)   # the report's first line, or None
    device_runs(records)                  # the runs whose telemetry is device data (not the CPU runs)

A run the user asked to put on the CPU (``--device cpu``) is no alarm: the cards'
readings are still not its data, and the report says it ran on the CPU as asked.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloads import protocol
from workloads.hints import hint_for

CODE = "cpu_while_accelerators_listed"   # the warning event's code: what programs match on
DOCTOR_HINT = "`cardbench doctor` says what torch sees and why"
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
        if item == "--device" and i + 1 < len(items):
            found = items[i + 1]
        elif item.startswith("--device="):
            found = item.split("=", 1)[1]
    found = found.strip().lower()
    return "" if found == "auto" else found


def asked_for_cpu(args: Iterable[Any] | None) -> bool:
    return is_cpu(requested_device(args))


def cpu_only_hint() -> str:
    return hint_for("Torch not compiled with CUDA enabled") or ""


def mismatch_hint() -> str:
    return hint_for("management CLI lists GPUs but torch sees none") or ""


def _with_doctor(hint: str) -> str:
    hint = (hint or mismatch_hint()).rstrip(". ")
    return f"{hint}; {DOCTOR_HINT}" if DOCTOR_HINT not in hint else hint


# -- what is listed ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Listed:
    """The accelerators something other than torch lists (NVML, the management CLI, the PCI bus)."""

    count: int = 0
    names: tuple[str, ...] = ()    # the model of each one known by name
    tools: tuple[str, ...] = ()    # who lists them: "NVML", "nvidia-smi"...
    seen_by_torch: int = 0         # devices the torch probe reports (listed or not)

    def describe(self) -> str:
        """'the 2 accelerators nvidia-smi lists (2x NVIDIA H100 80GB HBM3)'."""
        noun = "accelerator" if self.count == 1 else "accelerators"
        tools = "/".join(self.tools)
        verb = "list" if len(self.tools) > 1 else "lists"
        text = f"the {self.count} {noun}" + (f" {tools} {verb}" if tools else " listed")
        models = _models(self.names)
        return text + (f" ({models})" if models else "")

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
        devices = devices.get("devices") or []
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
        sources = [s for s in str(d.get("source") or "").split("+") if s]
        if "torch" in sources:
            seen += 1
        others = [s for s in sources if s != "torch"]
        if sources and not others:
            continue  # only torch reports it: not "listed elsewhere"
        count += 1
        if d.get("name"):
            names.append(str(d["name"]))
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


# -- the words ------------------------------------------------------------------------------------

def run_message(workload: str, device: str, listed: Listed, hint: str) -> str:
    """The run's warning: what ran where, what was not used, why, and what to do."""
    where = "" if device.strip().lower() == "cpu" else f" ({device})"
    return (f"{workload} runs on the CPU{where}, not on {listed.describe()}: torch sees none of them, "
            f"so its figures are CPU figures. Hint: {_with_doctor(hint)}")


def _outcome(workload: str, args: Iterable[Any] | None, auto: str = " (device auto)") -> str:
    wanted = requested_device(args)
    return f"{workload} with --device {wanted} will fail" if wanted else f"{workload}{auto} would run on the CPU"


def before_message(workload: str, args: Iterable[Any] | None, listed: Listed, view: TorchView) -> str:
    """The warning before a run that would land on the CPU (or fail) while the cards sit idle."""
    return f"torch sees none of {listed.describe()}: {_outcome(workload, args)}. Hint: {_with_doctor(view.hint)}"


def _cards(count: int) -> str:
    return f"the {count} listed card" + (" is" if count == 1 else "s are")


def short_hint(hint: str) -> str:
    """A hint without the pointer to `cardbench doctor` (a screen that has a doctor key says it its own way)."""
    return (hint or mismatch_hint()).replace(f"; {DOCTOR_HINT}", "")


def alarm_lines(warning: Any) -> tuple[str, str]:
    """A CPU-trap warning event as two banner lines: what happened (fits 80 columns), then why and the hint."""
    data = warning.to_dict() if hasattr(warning, "to_dict") else dict(warning or {})
    what, _, hint = str(data.get("message") or "").partition(" Hint: ")
    count = data.get("accelerators")
    if isinstance(count, int) and data.get("workload"):
        what = f"CPU ONLY: {data['workload']} runs on the CPU; {_cards(count)} NOT used"
    return what, f"torch sees none of them. hint: {short_hint(str(data.get('hint') or hint))}"


def headline(runs: Sequence[Any], devices: Any = None, checks: Iterable[Any] | None = None) -> str | None:
    """The report's first line when work ran on the CPU while accelerators are listed; else None.

    ``runs``: the report's `WorkloadSummary`s (or `RunRecord`s); ``devices``: the
    export's telemetry snapshot (its dict, a `Sample`, or a device list); ``checks``:
    the doctor's checks (objects or dicts).
    """
    checks = list(checks or ())
    return _headline([facts_of(r) for r in runs], listed_in(devices).at_least(doctor_count(checks)),
                     view_of_checks(checks))


def _headline(facts: list[RunFacts], listed: Listed, view: TorchView) -> str | None:
    on_cpu = [f for f in facts if f.on_cpu]
    if not on_cpu:
        return None
    for f in on_cpu:  # a run's own warning knows how many were listed when it ran
        alarm = f.alarm()
        if alarm is not None and isinstance(alarm.get("accelerators"), int):
            listed = listed.at_least(alarm["accelerators"])
    if listed.count == 0:
        return None  # a machine without accelerators: the CPU was all there was
    unasked = [f for f in on_cpu if not f.asked_for_cpu]
    if not unasked:
        return (f"Note: the workloads ran on the CPU as asked (`--device cpu`); {listed.describe()} "
                "were not used, and their readings are not the runs' data.")
    names = list(dict.fromkeys(f.workload for f in unasked))
    who = "the workloads" if len(unasked) == len(facts) and len(facts) > 1 else " and ".join(names)
    elsewhere = [f"{f.workload} ran on {f.device}" for f in facts if f.device and not f.on_cpu]
    hint = view.hint if view.sees is False else ""
    hint = hint or next((str(a["hint"]) for f in unasked if (a := f.alarm()) is not None and a.get("hint")), "")
    text = (f"WARNING: {who} ran on the CPU, not on {listed.describe()}: torch sees none of them, so "
            f"{'their' if len(unasked) > 1 else 'its'} figures are CPU figures and the cards' readings are not "
            "the runs' data")
    if elsewhere:
        text += f" ({'; '.join(elsewhere)})"
    text += "."
    if view.sees is False and view.evidence and view.origin == "doctor":
        text += f" The doctor: {view.evidence}."
    return f"{text} Hint: {_with_doctor(hint)}."


# -- the trap ---------------------------------------------------------------------------------------

class CpuTrap:
    """Follows what is listed, what torch sees and where each run went; says when work landed on the CPU.

    ``see_sample`` may be called from the sampler's thread; the rest from the caller's.
    """

    def __init__(self) -> None:
        self.listed = Listed()                 # the newest snapshot's
        self.doctor_listed = 0                 # the doctor's count (CLI, NVML, PCI bus)
        self.view = TorchView()                # what torch sees, the newest evidence
        self.runs: list[RunFacts] = []         # every run started, oldest first
        self.warnings: list[protocol.WorkloadWarning] = []   # the warnings issued, one per CPU run
        self._pending = False                  # the open run is on the CPU; nothing listed yet
        self._run_said = False                 # a run's start told what torch sees
        self._probe_seen: Any = None           # the probe whose answer is in ``view``

    # evidence -----------------------------------------------------------------------------------
    def see_sample(self, sample: Any) -> None:
        listed = listed_in(sample)
        self.listed = listed
        if listed.seen_by_torch and self.view.sees is None and not self._run_said:
            self.view = TorchView(True, f"the torch probe reports {listed.seen_by_torch} device(s)", origin="sample")

    def see_checks(self, checks: Iterable[Any] | None) -> None:
        """The doctor's checks: newer than anything else seen, so they win."""
        checks = list(checks or ())
        self.doctor_listed = doctor_count(checks)
        view = view_of_checks(checks)
        if view.sees is not None:
            self.view = view

    def see_probe(self, probe: Any) -> None:
        """The probe answers once; a run's start, being newer, outranks it (so does a later doctor)."""
        if probe is None or probe is self._probe_seen or self._run_said:
            return
        view = view_of_probe(probe)
        if view.sees is not None:
            self.view = view
            self._probe_seen = probe

    def listed_now(self) -> Listed:
        return self.listed.at_least(self.doctor_listed)

    # before a run ------------------------------------------------------------------------------
    def before_run(self, workload: str, args: Iterable[Any] | None) -> str | None:
        """The warning to show before starting this run, or None (torch sees a card, or nothing is listed)."""
        listed = self.listed_now()
        if self.view.sees is not False or listed.count == 0 or asked_for_cpu(args):
            return None
        return before_message(workload, args, listed, self.view)

    def before_run_lines(self, workload: str, args: Iterable[Any] | None) -> tuple[str, str] | None:
        """`before_run` as two banner lines: what would happen (fits 80 columns), then the hint."""
        if self.before_run(workload, args) is None:
            return None
        count = self.listed_now().count
        cards = f"the {count} listed card" + ("" if count == 1 else "s")
        return f"torch sees NONE of {cards}: {_outcome(workload, args, '')}", f"hint: {short_hint(self.view.hint)}"

    # a run ---------------------------------------------------------------------------------------
    def start_run(self, workload: str, args: Iterable[Any] | None) -> None:
        self.runs.append(RunFacts(workload, None, [str(a) for a in args or ()]))
        self._pending = False

    def see_event(self, event: protocol.Event) -> protocol.WorkloadWarning | None:
        """The open run's event; returns the CPU-trap warning to record, once per run, as soon as it is known."""
        if not self.runs:
            return None
        run = self.runs[-1]
        if isinstance(event, protocol.Start):
            run.device = event.device or None
            if run.device and not run.asked_for_cpu:
                if run.on_cpu:
                    self.view = TorchView(False, f"{run.workload} (device auto) started on {run.device}",
                                          self.view.hint if self.view.sees is False else "", "run")
                    self._pending = self._run_said = True
                elif requested_device(run.args) == "":
                    self.view = TorchView(True, f"{run.workload} started on {run.device}", origin="run")
                    self._run_said = True
        if not self._pending:
            return None
        listed = self.listed_now()
        if listed.count == 0:
            return None
        self._pending = False
        hint = _with_doctor(self.view.hint)
        warning = protocol.WorkloadWarning(
            t=time.time(), message=run_message(run.workload, run.device or "cpu", listed, hint), code=CODE,
            extra={"workload": run.workload, "device": run.device, "accelerators": listed.count, "hint": hint})
        run.warnings.append(warning.to_dict())
        self.warnings.append(warning)
        return warning

    def verdict(self) -> str | None:
        """This session's runs as the report's headline puts it; None unless work landed on the CPU unasked."""
        line = _headline(self.runs, self.listed_now(), self.view)
        return line if line is not None and line.startswith("WARNING") else None


PROBE_WAIT_S = 30.0   # the longest `check_before_run` waits for torch's answer


def check_before_run(workload: str, args: Iterable[Any] | None, *, timeout: float = PROBE_WAIT_S,
                     collector: Any = None) -> str | None:
    """For a command line (`cardbench run`): would this run land on the CPU beside listed cards? Blocks.

    One telemetry read (the management CLI, NVML, the PCI bus); only when it lists
    a card is torch asked (the probe child: a torch import, a few seconds, at most
    ``timeout``). Returns the warning, or None (asked for the CPU, nothing listed,
    torch sees a card, or no answer in time).
    """
    if asked_for_cpu(args):
        return None
    if collector is None:
        from tui.telemetry.collect import Collector

        collector = Collector(torch_probe=True)
    trap = CpuTrap()
    try:
        first = collector.collect()
        trap.see_sample(first)
        if trap.listed.count == 0 or trap.listed.seen_by_torch:
            return None
        if collector.torch is not None and collector.torch.wait(timeout):
            trap.see_probe(collector.torch)
    finally:
        collector.close()
    return trap.before_run(workload, args)
