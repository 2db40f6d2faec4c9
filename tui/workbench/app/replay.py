"""The workbench shows runs read from disk (the headless report's screen, a run attached to): plots, log, state.

`Replay` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only through `ReplayHost`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from tui.workbench.view.run_state import RunState

if TYPE_CHECKING:
    from tui.workbench.history import History
    from tui.workbench.panes.launcher import LauncherPane
    from tui.workbench.panes.log import LogPane


class ReplayHost(Protocol):
    """What `Replay` needs of the app."""

    history: History
    state: RunState
    loaded_runs: list[Path]
    workload_names: list[str]
    launcher: LauncherPane
    log_pane: LogPane
    clock: Callable[[], float]

    def show_state(self) -> None: ...


class Replay:
    """Runs from disk on the screen, and the log's clock (a replayed event is logged at its own time)."""

    def __init__(self, host: ReplayHost) -> None:
        self.host = host
        self._replay_t: float | None = None   # while a run read from disk is logged: its event's own time

    def log_time(self) -> float:
        # a run read back from disk is logged at its events' own times, not at the time it is re-drawn
        return self._replay_t if self._replay_t is not None else self.host.clock()

    def load_records(self, records: Sequence[Any]) -> None:
        """Show runs from disk: their steps and telemetry in the plots, their outcome in the log (at its times)."""
        host = self.host
        for record in records:
            host.history.add_record(record)
            host.loaded_runs.append(record.path)
            self._replay(record)
        if not records:
            return
        last = records[-1]
        host.state = RunState.from_record(last)
        if last.workload in host.workload_names:
            host.launcher.select(last.workload)
            # the screenshot in a report must show the settings the run had, not the launcher's defaults
            host.launcher.show_args(last.workload, [str(a) for a in last.config.get("args", [])])
        host.show_state()

    def _replay(self, record: Any) -> None:
        """The run's events in the log, each stamped with its own time, after a line saying it was read from disk."""
        from tui.report.run_times import run_span, run_times
        from workloads import protocol

        log = self.host.log_pane
        try:
            self._replay_t = run_times(record)[0]
            log.say(f"{record.id} from disk: {run_span(record)}", "dim")
            log.workload = record.workload  # its start event is not replayed: the result's words
            for event in record.events:
                if not isinstance(event, (protocol.Step, protocol.Start)):
                    self._replay_t = event.t if event.t is not None else self._replay_t
                    log.event(event)
        finally:
            self._replay_t = None
