"""The workbench's end: q asks while its own run is active, a hang-up or SIGTERM stops the run and exits within
a bound, unmounting stops the session and the sampler (an attached run, another process's, goes on).

A mixin of `tui.workbench.app.Workbench`; its attributes are the app's.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading

from workloads import exit_codes

# how long a hang-up (closed SSH session) waits for a clean exit before a hard one
HANGUP_EXIT_S = 3.0


class LifecycleMixin:
    # quitting -----------------------------------------------------------------------------
    async def action_quit(self) -> None:
        async def answered(yes: bool | None) -> None:
            if yes:
                await self._stop_children()
                self.exit()

        if not self.session.running:
            await answered(True)
            return
        from tui.workbench.panes.confirm import Confirm

        self.push_screen(Confirm(f"{self.state.workload} is running. Stop it and quit?", "Stop and quit", "Stay"),
                         answered)

    def _on_signal(self, sig: int) -> None:
        # the session is already stopping the child
        self._hangup_task = asyncio.ensure_future(self._hangup(sig))

    async def _hangup(self, sig: int) -> None:
        await self.session.stop()
        # After a hang-up Textual's exit blocks for ever restoring a terminal that is gone
        # (its writer queue never drains); the children are stopped and every event is on
        # disk, so a bounded wait and then a hard exit loses nothing.
        watchdog = threading.Timer(HANGUP_EXIT_S, os._exit, (exit_codes.for_signal(sig),))
        watchdog.daemon = True
        watchdog.start()
        self.exit(return_code=exit_codes.for_signal(sig))

    async def _stop_children(self) -> None:
        if self.session.running:
            self.log_pane.say("stopping the workload before quitting...", "yellow")
            await self.session.stop()
        if self.sampler is not None:
            sampler, self.sampler = self.sampler, None
            # the sampler may be mid-poll (a slow CLI): join it off the UI thread
            threading.Thread(target=sampler.stop, name="cardbench-sampler-stop", daemon=True).start()

    async def on_unmount(self) -> None:
        gc.unfreeze()  # an app built again in this process (tests, the headless screenshot) starts clean
        self._unfollow()  # an attached run is another process's: it goes on
        if self._unwatch_signals is not None:
            self._unwatch_signals()
            self._unwatch_signals = None
        if "session" in vars(self):  # made on first use (on_ready): an app closed before its first frame has none
            await self.session.stop()
        if self.sampler is not None:
            self.sampler.stop(timeout=1.0)
            self.sampler = None

