"""The workload this workbench runs: starting it from the launcher's fields, stopping it, reading its events into
the poller's inbox; and every run's events (its own, or an attached run's, as the poller takes them) into the
history, the run's state, the log and a notice where one calls for it.

`WorkloadRun` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only through
`WorkloadRunHost`.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Protocol

from tui.workbench.launch import BadValue, build_args
from tui.workbench.view.run_state import RunState
from workloads import registry
from workloads.safe_text import one_line

if TYPE_CHECKING:
    from tui.session import RunSession
    from tui.store.follow import AttachedRun
    from tui.workbench.app.attach import RunsInProgress
    from tui.workbench.app.poller import LivePoller
    from tui.workbench.history import History
    from tui.workbench.panes.launcher import LauncherPane
    from tui.workbench.panes.log import LogPane
    from workloads import protocol

WORKER_GROUP = "workload"   # the group of the worker that reads the run's events (a failed one ends the run's state)


class WorkloadRunHost(Protocol):
    """What `WorkloadRun` needs of the app."""

    session: RunSession
    history: History
    state: RunState
    launcher: LauncherPane
    log_pane: LogPane
    poller: LivePoller
    runs_in_progress: RunsInProgress

    @property
    def attached(self) -> AttachedRun | None: ...
    def show_state(self) -> None: ...
    def notify(self, message: str, **options: Any) -> None: ...
    def run_worker(self, work: Any, **options: Any) -> Any: ...


class WorkloadRun:
    """Start, stop and read this workbench's run; take any run's events."""

    def __init__(self, host: WorkloadRunHost) -> None:
        self.host = host

    def start(self, name: str) -> bool:
        """Start ``name`` with the launcher's fields; False (and said why) when it cannot start."""
        host, log = self.host, self.host.log_pane
        try:
            args = build_args(name, host.launcher.values(name))
        except BadValue as exc:
            log.say(f"cannot start {name}: {exc}", "bold red")
            host.notify(str(exc), title="bad value", severity="error")
            return False
        from tui.store import RunStoreError

        try:
            run = host.session.start(name, args, source="workbench")
        except RunStoreError as exc:
            log.say(f"cannot start {name}: {exc}", "bold red")
            host.notify(str(exc), severity="error")
            return False
        host.runs_in_progress.unfollow()  # an attached run that ended leaves the screen to this one
        host.history.drop_runs()
        spec = registry.spec_for(name)
        host.history.run(run.id, label=name, unit=spec.unit or None, emits_warmup=spec.warmup_emits_steps)
        host.state = RunState.starting(name, run.id, args)
        host.show_state()
        warning = host.session.cpu_trap.before_run(name, args)
        if warning:
            log.say(f"WARNING: {warning}", "bold red")
        log.say(f"starting {name} {' '.join(args)}  (run {run.path})", "bold")
        host.run_worker(self._consume(run.id), exclusive=False, exit_on_error=False, group=WORKER_GROUP,
                        description="workload events")
        return True

    def stop(self) -> None:
        host = self.host
        if not host.session.running or host.session.stopping:
            return
        host.log_pane.say(f"stopping {host.state.workload} (SIGTERM, SIGKILL after {host.session.grace_s:.0f} s)...",
                          "yellow")
        host.session.request_stop()

    async def _consume(self, run_id: str) -> None:
        from workloads import protocol

        # the session closes the run and stops the child however this ends (the app closing cancels it)
        async with aclosing(self.host.session.events()) as events:
            async for event in events:
                self.host.poller.put_event(run_id, event, wake=not isinstance(event, protocol.Step))

    def take_event(self, run_id: str, event: protocol.Event) -> None:
        """A run's event from the poller's inbox (this workbench's child's, or an attached run's): a step into the
        history and the state; any other into the log, the state and a notice where it calls for one."""
        from workloads import protocol

        host = self.host
        if isinstance(event, protocol.Step):
            host.history.add_step(run_id, event)
            if run_id == host.state.run_id:
                host.state.see_step(event)
            return
        host.log_pane.event(event)
        if run_id != host.state.run_id:
            return
        host.state.see_event(event)
        if isinstance(event, protocol.Start):
            host.history.see_device(run_id, event.device)
        elif event is host.state.cpu_alarm:
            from tui.cpu_trap import alarm_lines

            host.notify(one_line(". ".join(alarm_lines(event))), title="running on the CPU", severity="error",
                        timeout=30, markup=False)
        self._notify_trouble(event)
        if isinstance(event, protocol.End):
            attached = host.attached
            run_path = (attached.live.path if attached is not None and attached.live.id == run_id
                        else host.session.runs[-1] if host.session.runs else None)
            host.log_pane.say(f"run {run_id} {event.status}; everything is in {run_path}", "dim")

    def _notify_trouble(self, event: protocol.Event) -> None:
        """A notice for a run dir that cannot be written and for a workload's error."""
        from tui.session import STORE_FAULT   # loaded with the session, just after the first frame
        from workloads import protocol

        # an event's words come from its workload, a server or a run directory someone else wrote: printable
        # (`workloads.safe_text`), and never read as markup
        if isinstance(event, protocol.WorkloadWarning) and event.code == STORE_FAULT:
            self.host.notify(one_line(event.message), title="run dir not writable", severity="error", timeout=30,
                             markup=False)
        if isinstance(event, protocol.Error):
            self.host.notify(one_line(event.message, 200), title="workload error", severity="error", markup=False)
