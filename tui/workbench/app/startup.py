"""The workbench's start: what its first frame waits for, and what comes just after it.

The first frame draws the panes' frames, the workload bar and the run's state. The run store, the session (and its
runner and CPU trap), the history, the sampler, the doctor, the export and the events' classes are imported when
first used: the store and the session just after the first frame (`on_ready`), the rest at the key or event that
needs them. That keeps the start near an empty Textual app's (bench/app_latency.py; tests/test_imports.py's
NOT_AT_START keeps them out of it).

A mixin of `tui.workbench.app.Workbench`; its attributes are the app's.
"""

from __future__ import annotations

import functools
import gc
import signal
from typing import TYPE_CHECKING, Any

from tui.workbench.panes import keys
from workloads.errors import first_line

if TYPE_CHECKING:
    from tui.workbench.history import History
    from tui.session import RunSession
    from tui.store import RunStore

PLOT_REFRESH_S = 0.5   # plots repaint at most this often, however fast steps arrive


class StartupMixin:
    # the run store, the session and the history: made at their first use (just after the first frame) ----------
    @functools.cached_property
    def store(self) -> RunStore:
        from tui.store import RunStore

        return RunStore(self._runs_dir)

    @functools.cached_property
    def session(self) -> RunSession:
        from tui.session import RunSession

        grace = {} if self._stop_grace_s is None else {"grace_s": self._stop_grace_s}
        return RunSession(self.store, runner_factory=self._runner_factory, on_log=self._child_said, **grace)

    @functools.cached_property
    def history(self) -> History:
        from tui.workbench.history import History

        return History()

    async def on_ready(self) -> None:
        # the first frame is out: now the session, the fields, the plots and the sampler (start-up stays near an
        # empty app's). A closed SSH session (SIGHUP) or a `kill` must not leave a workload training on the card:
        # nothing runs before this point, so watching from here loses nothing
        try:
            self._unwatch_signals = self.session.stop_on_signals((signal.SIGHUP, signal.SIGTERM),
                                                                 then=self._on_signal)
            # the log shows nothing in the first frame (it writes once it has a size): said here, the line appears
            # in the same later frame it did when said on mount
            span = keys.key_span(len(self.workload_names))
            self.log_pane.say(f"runs are kept in {self.store.root}; {span} choose a workload, "
                              "s starts it, d runs the doctor, e exports, q quits")
            await self.launcher.build()
            await self.plots.build()
            self.set_interval(PLOT_REFRESH_S, self._tick)
            if self.start_sampler:
                self._start_sampler()
        finally:
            # what start-up built lives as long as the app: keep it out of the collector's full passes,
            # which otherwise walk it all and stall a key press on a busy host; then the collector runs again
            gc.freeze()
            if self._gc_held:
                self._gc_held = False
                gc.enable()
        self.panes_built.set()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Textual's run, with the garbage collector held until the first frame is out (`on_ready`).

        Start-up allocates tens of thousands of objects that live as long as the app (modules, widgets, styles)
        and next to no garbage, yet the collector walked them ~175 times before the first frame (one full pass:
        20-90 ms on a loaded 2-core host), about a fifth of the start. What exists now (the imports) is frozen:
        no pass walks it again; on_ready freezes what start-up built and lets the collector run again.
        """
        self._gc_held = gc.isenabled()
        gc.freeze()
        gc.disable()
        try:
            return super().run(*args, **kwargs)
        finally:
            if self._gc_held:  # the app ended before its first frame
                self._gc_held = False
                gc.enable()

    def _start_sampler(self) -> None:
        try:
            source = self.telemetry_source
            if source is None:
                from tui.workbench.sampler import default_telemetry_source as source
            sampler = self.session.attach_sampler(source(self.post_sample))
            sampler.start()
        except Exception as exc:  # noqa: BLE001 - no telemetry is a degraded workbench, not a dead one
            self.log_pane.say(f"telemetry could not start ({first_line(exc, typed=True)}); device readings show N/A",
                              "yellow")
            return
        self.sampler = sampler

    def _tick(self) -> None:
        self.plots.refresh_plots()
