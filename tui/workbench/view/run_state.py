"""What the workbench shows about the current (or last) run, UI-free: built from events as they arrive, or from disk.

    state = RunState.starting("resnet50", run.id, args)
    state.see_step(step)        # step, throughput, loss and the ETA
    state.see_event(event)      # start, fallback, warning, result, end
    state = RunState.from_record(load_run(path))

The launcher pane renders it (`tui.workbench.panes.run_view.render_state`). ``cpu_alarm`` is
the run's CPU-trap warning (`tui.cpu_trap`): work on the CPU while accelerators are
listed, the loudest thing the workbench shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from workloads.facts.missing import is_finite
from tui.workbench.launch import total_steps
from workloads import registry
from workloads.spec import positive

if TYPE_CHECKING:
    from tui.store import RunRecord
    from workloads import protocol

# tui.cpu_trap (its facts, words and the report's catalogue) and workloads.protocol (the events' classes) are
# imported at the first event or record a state sees: the workbench's first frame draws an idle state

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
    total_epochs: int | None = None  # the epoch the run plans to end in (what its step cap allows)
    eta_s: float | None = None
    eta_of: str = ""              # what the ETA is to, when not the run's end: "to the epoch's end, the log's"
    batch: tuple[int, int] | None = None  # a job's epoch bar: (batch, batches in the epoch)
    throughput: float | None = None  # the last step event's, over ``rate_span`` (never the result's headline)
    rate_span: str | None = None     # what that throughput is measured over: "last step", "last 16 tokens"
    unit: str | None = None
    loss: float | None = None
    fallbacks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    result: dict = field(default_factory=dict)
    doing: str = ""               # what a command run is doing now, in its words (readiness's phase), for the figures
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
        from tui.cpu_trap import is_cpu

        return is_cpu(self.device)

    def see_step(self, step: protocol.Step) -> None:
        """A step arrived: progress, figures and the ETA.

        The ETA is the time to the last planned count at the rate since the first step seen (so pauses between
        steps, a generation's next prefill, are in it); from one step alone, at that step's time per count.
        """
        self.status = "running"
        self.step = step.step
        self.total_steps = positive(step.total_steps) or self.total_steps
        if step.epoch is not None:
            self.epoch = step.epoch
            self.total_epochs = positive(step.total_epochs) or self.total_epochs
        if step.throughput is not None:
            self.throughput = step.throughput
            self.rate_span = step.rate_span()
            self.unit = step.unit or self.unit
        if step.loss is not None:
            self.loss = step.loss
        if self.first_step is None:
            self.first_step = (step.t, step.step)
        t0, s0 = self.first_step
        batch, batches = step.extra.get("batch"), step.extra.get("batches")
        self.batch = (batch, batches) if type(batch) is int and type(batches) is int else None
        told = step.extra.get("epoch_eta_s")
        if not self.total_steps and is_finite(told) and told >= 0:
            # a job whose epochs are not known: its log's own time left, to the end of the epoch
            self.eta_s, self.eta_of = float(told), "to the epoch's end, the log's"
            return
        if not self.total_steps:
            return
        left = max(0, self.total_steps - step.step)
        if step.step > s0 and step.t > t0:
            self.eta_s = left * (step.t - t0) / (step.step - s0)
        elif step.step_s is not None and step.step_s >= 0:
            self.eta_s = left * step.step_s

    def see_event(self, event: protocol.Event) -> None:
        """Any other event of the run."""
        from workloads import protocol

        if isinstance(event, protocol.Start):
            self.status = "running"
            self.total_steps = total_steps(self.workload, [], event.config) or self.total_steps
            self.total_epochs = positive(event.config.get("total_epochs")) or self.total_epochs
            self.device = event.device or None
        elif isinstance(event, protocol.Fallback):
            self.fallbacks.append(_fallback_line(event))
        elif isinstance(event, protocol.WorkloadWarning):
            from tui.cpu_trap import CODE as CPU_TRAP

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
        from tui.cpu_trap import CODE as CPU_TRAP
        from workloads import protocol

        steps = record.steps
        step = steps[-1] if steps else None
        losses = [s.loss for s in steps if s.loss is not None]
        rated = next((s for s in reversed(steps) if s.throughput is not None), None)
        warnings = record.of(protocol.WorkloadWarning)
        start = record.start
        config = start.config if start is not None else {}
        args = record.config.get("args")
        args = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []  # config.json may be damaged
        return cls(
            workload=record.workload, run_id=record.id, status=record.status,
            step=step.step if step else None, epoch=step.epoch if step else None,
            total_steps=positive(step.total_steps if step else None)
            or total_steps(record.workload, args, config),
            total_epochs=positive(step.total_epochs if step else None) or positive(config.get("total_epochs")),
            throughput=rated.throughput if rated else None, rate_span=rated.rate_span() if rated else None,
            unit=next((s.unit for s in steps if s.unit), None),
            loss=losses[-1] if losses else None,
            fallbacks=[_fallback_line(f) for f in record.of(protocol.Fallback)],
            warnings=[w.message for w in warnings],
            result=dict(record.result.metrics) if record.result else {},
            device=(start.device or None) if start is not None else None,
            cpu_alarm=next((w for w in warnings if w.code == CPU_TRAP), None))
