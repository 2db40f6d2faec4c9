"""The workbench shows runs read from disk (the headless report's screen, a run attached to): plots, log, state.

A mixin of `tui.workbench.app.Workbench`; its attributes are the app's.
"""

from __future__ import annotations

from typing import Any, Sequence

from tui.workbench.view.run_state import RunState


class ReplayMixin:
    # records (headless screenshot, reopened runs) ----------------------------------------
    def _log_time(self) -> float:
        # a run read back from disk is logged at its events' own times, not at the time it is re-drawn
        return self._replay_t if self._replay_t is not None else self.clock()

    def load_records(self, records: Sequence[Any]) -> None:
        """Show runs from disk: their steps and telemetry in the plots, their outcome in the log (at its times)."""
        for record in records:
            self.history.add_record(record)
            self.loaded_runs.append(record.path)
            self._replay(record)
        if not records:
            return
        last = records[-1]
        self.state = RunState.from_record(last)
        if last.workload in self.workload_names:
            self.launcher.select(last.workload)
            # the screenshot in a report must show the settings the run had, not the launcher's defaults
            self.launcher.show_args(last.workload, [str(a) for a in last.config.get("args", [])])
        self._show_state()
        self.plots.refresh_plots()

    def _replay(self, record: Any) -> None:
        """The run's events in the log, each stamped with its own time, after a line saying it was read from disk."""
        from tui.report.run_times import run_span, run_times
        from workloads import protocol

        try:
            self._replay_t = run_times(record)[0]
            self.log_pane.say(f"{record.id} from disk: {run_span(record)}", "dim")
            self.log_pane.workload = record.workload  # its start event is not replayed: the result's words
            for event in record.events:
                if not isinstance(event, (protocol.Step, protocol.Start)):
                    self._replay_t = event.t if event.t is not None else self._replay_t
                    self.log_pane.event(event)
        finally:
            self._replay_t = None

