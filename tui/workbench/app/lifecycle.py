"""The workbench's end: q asks while its own run is active, a hang-up or SIGTERM stops the run and exits within
a bound, unmounting stops the session and the sampler (an attached run, another process's, goes on).

`Lifecycle` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only through
`LifecycleHost`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Protocol

from workloads import exit_codes

if TYPE_CHECKING:
    from tui.session import RunSession
    from tui.workbench.app.attach import RunsInProgress
    from tui.workbench.app.ready_run import ReadyRun
    from tui.workbench.view.run_state import RunState

# how long a hang-up (closed SSH session) waits for a clean exit before a hard one
HANGUP_EXIT_S = 3.0


class LifecycleHost(Protocol):
    """What `Lifecycle` needs of the app."""

    session: RunSession
    state: RunState
    sampler: Any
    runs_in_progress: RunsInProgress
    ready_run: ReadyRun

    def session_made(self) -> bool: ...
    def say(self, line: str, style: str = "") -> None: ...
    def push_screen(self, screen: Any, callback: Callable[[Any], Any] | None = None) -> Any: ...
    def exit(self, result: Any = None, return_code: int = 0) -> None: ...


class Lifecycle:
    """Quitting, hang-ups and the end of the app."""

    def __init__(self, host: LifecycleHost) -> None:
        self.host = host
        self.unwatch_signals: Callable[[], None] | None = None   # set once the session watches SIGHUP/SIGTERM
        self._hangup_task: asyncio.Future | None = None

    async def quit(self) -> None:
        host = self.host

        async def answered(yes: bool | None) -> None:
            if yes:
                await self._stop_children()
                host.exit()

        if not host.session.running and not host.ready_run.running:
            await answered(True)
            return
        from tui.workbench.panes.confirm import Confirm

        host.push_screen(Confirm(f"{host.state.workload} is running. Stop it and quit?", "Stop and quit", "Stay"),
                         answered)

    def on_signal(self, sig: int) -> None:
        # the session is already stopping the child; readiness is asked to stop and left to write what it measured
        self.host.ready_run.leave()
        self._hangup_task = asyncio.ensure_future(self._hangup(sig))

    async def _hangup(self, sig: int) -> None:
        await self.host.session.stop()
        # After a hang-up Textual's exit blocks for ever restoring a terminal that is gone
        # (its writer queue never drains); the children are stopped and every event is on
        # disk, so a bounded wait and then a hard exit loses nothing.
        watchdog = threading.Timer(HANGUP_EXIT_S, os._exit, (exit_codes.for_signal(sig),))
        watchdog.daemon = True
        watchdog.start()
        self.host.exit(return_code=exit_codes.for_signal(sig))

    async def _stop_children(self) -> None:
        host = self.host
        host.ready_run.leave()   # detached: it stops its step and writes its table and bundle after we are gone
        if host.session.running:
            host.say("stopping the workload before quitting...", "yellow")
            await host.session.stop()
        if host.sampler is not None:
            sampler, host.sampler = host.sampler, None
            # the sampler may be mid-poll (a slow CLI): join it off the UI thread
            threading.Thread(target=sampler.stop, name="cardbench-sampler-stop", daemon=True).start()

    async def unmount(self) -> None:
        host = self.host
        gc.unfreeze()  # an app built again in this process (tests, the headless screenshot) starts clean
        host.runs_in_progress.unfollow()  # an attached run is another process's: it goes on
        host.ready_run.leave()
        if self.unwatch_signals is not None:
            self.unwatch_signals()
            self.unwatch_signals = None
        if host.session_made():  # made on first use (on_ready): an app closed before its first frame has none
            await host.session.stop()
        if host.sampler is not None:
            host.sampler.stop(timeout=1.0)
            host.sampler = None
