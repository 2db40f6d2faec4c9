"""The workbench's start: what its first frame waits for, and what comes just after it.

The first frame draws the panes' frames, the workload bar and the run's state. The run store, the session (and its
runner and CPU trap), the history, the sampler, the doctor, the export and the events' classes are imported when
first used: the store and the session just after the first frame (`Startup.ready`, from the app's ``on_ready``),
the rest at the key or event that needs them. That keeps the start near an empty Textual app's
(bench/app_latency.py; tests/test_imports.py's NOT_AT_START keeps them out of it).

`Startup` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only through `StartupHost`.
"""

from __future__ import annotations

import gc
import signal
from typing import TYPE_CHECKING, Any, Protocol

from tui.workbench.panes import keys
from workloads.errors import first_line

if TYPE_CHECKING:
    from tui.session import RunSession
    from tui.store import RunStore
    from tui.workbench.app.lifecycle import Lifecycle
    from tui.workbench.app.poller import LivePoller
    from tui.workbench.panes.launcher import LauncherPane
    from tui.workbench.panes.plots import PlotsPane
    from tui.workbench.sampler import TelemetrySource


class StartupHost(Protocol):
    """What `Startup` needs of the app."""

    store: RunStore
    session: RunSession
    sampler: Any
    telemetry_source: TelemetrySource | None
    start_sampler: bool
    workload_names: list[str]
    launcher: LauncherPane
    plots: PlotsPane
    lifecycle: Lifecycle
    poller: LivePoller

    def say(self, line: str, style: str = "") -> None: ...
    def post_sample(self, sample: Any) -> None: ...


class Startup:
    """The collector held until the first frame; the session, the fields, the plots and the sampler after it."""

    def __init__(self, host: StartupHost) -> None:
        self.host = host
        self._gc_held = False   # the collector is held until the first frame (ready lets it go)

    def hold_collector(self) -> None:
        """Before Textual's run: the collector held until the first frame is out (`ready`).

        Start-up allocates tens of thousands of objects that live as long as the app (modules, widgets, styles)
        and next to no garbage, yet the collector walked them ~175 times before the first frame (one full pass:
        20-90 ms on a loaded 2-core host), about a fifth of the start. What exists now (the imports) is frozen:
        no pass walks it again; ready freezes what start-up built and lets the collector run again.
        """
        self._gc_held = gc.isenabled()
        gc.freeze()
        gc.disable()

    def release_collector(self) -> None:
        """The collector runs again (the first frame is out, or the app ended before it)."""
        if self._gc_held:
            self._gc_held = False
            gc.enable()

    async def ready(self) -> None:
        """The first frame is out: now the session, the fields, the plots and the sampler (start-up stays near an
        empty app's). A closed SSH session (SIGHUP) or a `kill` must not leave a workload training on the card:
        nothing runs before this point, so watching from here loses nothing."""
        host = self.host
        try:
            lifecycle = host.lifecycle
            lifecycle.unwatch_signals = host.session.stop_on_signals((signal.SIGHUP, signal.SIGTERM),
                                                                     then=lifecycle.on_signal)
            # the log shows nothing in the first frame (it writes once it has a size): said here, the line appears
            # in the same later frame it did when said on mount
            span = keys.key_span(len(host.workload_names))
            host.say(f"runs are kept in {host.store.root}; {span} choose a workload, "
                     "s starts it, d runs the doctor, e exports, q quits")
            await host.launcher.build()
            await host.plots.build()
            host.poller.start()
            if host.start_sampler:
                self._start_sampler()
        finally:
            # what start-up built lives as long as the app: keep it out of the collector's full passes,
            # which otherwise walk it all and stall a key press on a busy host; then the collector runs again
            gc.freeze()
            self.release_collector()

    def _start_sampler(self) -> None:
        host = self.host
        try:
            source = host.telemetry_source
            if source is None:
                from tui.workbench.sampler import default_telemetry_source as source
            sampler = host.session.attach_sampler(source(host.post_sample))
            sampler.start()
        except Exception as exc:  # noqa: BLE001 - no telemetry is a degraded workbench, not a dead one
            host.say(f"telemetry could not start ({first_line(exc, typed=True)}); device readings show N/A",
                     "yellow")
            return
        host.sampler = sampler
