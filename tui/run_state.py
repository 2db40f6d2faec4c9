"""What the workbench shows about the current (or last) run, UI-free: built from events as they arrive, or from disk.

    state = RunState.starting("resnet50", run.id, args)
    state.see_step(step)        # step, throughput, loss and the ETA
    state.see_event(event)      # start, fallback, warning, result, end
    state = RunState.from_record(load_run(path))

The launcher pane renders it (`tui.panes.run_view.render_state`). ``cpu_alarm`` is
the run's CPU-trap warning (`tui.cpu_trap`): work on the CPU while accelerators are
listed, the loudest thing the workbench shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from tui.cpu_trap import CODE as CPU_TRAP, is_cpu
from tui.launch import total_steps
from tui.runs import RunRecord
from workloads import protocol, registry

ACTIVE = ("starting", "running")


def _fallback_line(event: protocol.Fallback) -> str:
    return f"{event.error[:60]} -> {event.action}"


@dataclass
class RunState:
    """The run's status, progress, ETA, fallbacks, warnings and result."""

    workload: str = ""
    run_id: str = ""
    status: str = "idle"          # idle / starting / running / ok / failed / stopped
    step: int | None = None
    epoch: int | None = None
    total_steps: int | None = None
    eta_s: float | None = None
    throughput: float | None = None
    unit: str | None = None
    loss: float | None = None
    fallbacks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    result: dict = field(default_factory=dict)
    device: str | None = None     # where the run is, from its start event ("cuda:0 (...)", "cpu (...)")
    cpu_alarm: protocol.WorkloadWarning | None = None  # ran on the CPU while accelerators are listed
    first_step: tuple[float, int] | None = field(default=None, repr=False)  # (t, step) first seen: the ETA's origin

    @classmethod
    def starting(cls, workload: str, run_id: str, args: Sequence[str]) -> "RunState":
        """A run just started with these arguments: its planned steps and unit come from its spec."""
        return cls(workload=workload, run_id=run_id, status="starting", total_steps=total_steps(workload, args),
                   unit=registry.spec_for(workload).unit or None)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def on_cpu(self) -> bool:
        """The run is (or was) on the CPU: the cards' readings are not its data."""
        return is_cpu(self.device)

    def see_step(self, step: protocol.Step) -> None:
        """A step arrived: progress, figures and the ETA (the rate since the first step seen)."""
        self.status = "running"
        self.step = step.step
        if step.epoch is not None:
            self.epoch = step.epoch
        if step.throughput is not None:
            self.throughput = step.throughput
            self.unit = step.unit or self.unit
        if step.loss is not None:
            self.loss = step.loss
        if self.first_step is None:
            self.first_step = (step.t, step.step)
        t0, s0 = self.first_step
        if self.total_steps and step.step > s0 and step.t > t0:
            rate = (step.step - s0) / (step.t - t0)
            self.eta_s = max(0.0, (self.total_steps - step.step) / rate)

    def see_event(self, event: protocol.Event) -> None:
        """Any other event of the run."""
        if isinstance(event, protocol.Start):
            self.status = "running"
            self.total_steps = total_steps(self.workload, [], event.config) or self.total_steps
            self.device = event.device or None
        elif isinstance(event, protocol.Fallback):
            self.fallbacks.append(_fallback_line(event))
        elif isinstance(event, protocol.WorkloadWarning):
            self.warnings.append(event.message)
            if event.code == CPU_TRAP:
                self.cpu_alarm = event
        elif isinstance(event, protocol.Result):
            self.result = dict(event.metrics)
        elif isinstance(event, protocol.End):
            self.status = event.status
            self.eta_s = None

    @classmethod
    def from_record(cls, record: RunRecord) -> "RunState":
        """A finished (or cut short) run, rebuilt from its directory."""
        steps = record.steps
        step = steps[-1] if steps else None
        losses = [s.loss for s in steps if s.loss is not None]
        rates = [s.throughput for s in steps if s.throughput is not None]
        warnings = record.of(protocol.WorkloadWarning)
        start = record.start
        return cls(
            workload=record.workload, run_id=record.id, status=record.status,
            step=step.step if step else None, epoch=step.epoch if step else None,
            throughput=rates[-1] if rates else None, unit=next((s.unit for s in steps if s.unit), None),
            loss=losses[-1] if losses else None,
            fallbacks=[_fallback_line(f) for f in record.of(protocol.Fallback)],
            warnings=[w.message for w in warnings],
            result=dict(record.result.metrics) if record.result else {},
            device=(start.device or None) if start is not None else None,
            cpu_alarm=next((w for w in warnings if w.code == CPU_TRAP), None))
