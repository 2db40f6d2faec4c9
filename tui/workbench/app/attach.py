"""Runs in progress recorded by another process on this machine (detached, or in another terminal:
`tui.store.live`): r lists them, attaching rebuilds the run from disk then follows its files off the UI thread
(`tui.store.follow`), s stops one after asking, D starts the launcher's workload detached.

`RunsInProgress` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only through
`AttachHost`.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Protocol

from tui.workbench.launch import BadValue, build_args
from workloads.facts.formatting import format_bytes

if TYPE_CHECKING:
    from tui.session import RunSession
    from tui.store import RunStore
    from tui.store.follow import AttachedRun
    from tui.store.live import LiveRun
    from tui.workbench.app.poller import LivePoller
    from tui.workbench.history import History
    from tui.workbench.panes.launcher import LauncherPane
    from tui.workbench.view.run_state import RunState
    from workloads import protocol

# what follows is imported at the first r, attach or D, not at start-up: the first frame needs none of it (the
# live-run store and psutil, the follower, the detacher, the runs screen: a fifth of the workbench's imports)

FOLLOW_S = 0.5         # how often an attached run's files are read for what it appended
DETACHED_APPEARS_S = 60.0  # a run started detached (D) records its run directory within this


class AttachHost(Protocol):
    """What `RunsInProgress` needs of the app."""

    store: RunStore
    session: RunSession
    history: History
    state: RunState
    sampler: Any
    launcher: LauncherPane
    poller: LivePoller

    @property
    def selected_workload(self) -> str: ...
    def say(self, line: str, style: str = "") -> None: ...
    def show_state(self) -> None: ...
    def load_records(self, records: list[Any]) -> None: ...
    def push_screen(self, screen: Any, callback: Callable[[Any], Any] | None = None) -> Any: ...
    def set_interval(self, interval: float, callback: Callable[[], Any]) -> Any: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...
    def run_worker(self, work: Callable[[], Any], **options: Any) -> Any: ...


class RunsInProgress:
    """Lists, attaches to, follows and stops runs that another process records; starts detached ones."""

    def __init__(self, host: AttachHost) -> None:
        self.host = host
        self.attached: AttachedRun | None = None   # a run in progress recorded by another process, followed here
        self.polling = False                     # a read is in flight: the next tick waits for it
        self._follow_timer: Any = None
        self._follow_lock = threading.Lock()  # a read of the attached run (a thread) and its close (unfollow)

    def _thread(self, work: Callable[[], Any], group: str, description: str, exclusive: bool = False) -> Any:
        return self.host.run_worker(work, thread=True, exclusive=exclusive, exit_on_error=False, group=group,
                                    description=description)

    def _say_from_thread(self, line: str, style: str = "") -> None:
        self.host.call_from_thread(self.host.say, line, style)

    # listing -------------------------------------------------------------------------------------
    def list_runs(self) -> None:
        self._thread(self._list_live_runs, "live-runs", "listing runs in progress", exclusive=True)

    def _list_live_runs(self) -> None:
        from tui.store.live import live_runs
        from tui.workbench.panes.live_runs import LiveRunsScreen

        # every run directory's pid file is read: off the UI thread (a runs dir on a network disk)
        runs = live_runs(self.host.store.root)
        self.host.call_from_thread(self.host.push_screen, LiveRunsScreen(runs), self._live_run_chosen)

    def _live_run_chosen(self, choice: tuple[str, LiveRun] | None) -> None:
        if choice is None:
            return
        what, live = choice
        if what == "attach":
            self.attach(live)
        else:
            self.ask_stop(live)

    # attaching ------------------------------------------------------------------------------------
    def attach(self, live: LiveRun) -> bool:
        """Show a run in progress: its history from disk, then what it appends (plots, log, state)."""
        if self.host.session.running:
            self.host.say("a run of this workbench is active: stop it (s) or let it finish, then attach", "yellow")
            return False
        from tui.workbench.panes.live_runs import describe

        self.unfollow()
        self.host.say(f"attaching to {describe(live)}...", "bold")
        self._thread(partial(self._read_attached, live), "attach", "reading a run in progress", exclusive=True)
        return True

    def _read_attached(self, live: LiveRun) -> None:
        from tui.store import RunStoreError
        from tui.store.follow import AttachedRun, RunFollower

        # a day-long run takes seconds to read: off the UI thread
        follower = RunFollower(live.path)
        try:
            record = follower.record()
        except RunStoreError as exc:
            follower.close()
            self._say_from_thread(f"cannot attach to {live.id}: {exc}", "bold red")
            return
        self.host.call_from_thread(self._show_attached, AttachedRun(live, follower), record)

    def _show_attached(self, attached: AttachedRun, record: Any) -> None:
        host = self.host
        self.unfollow()
        self.attached = attached
        host.history.drop_runs()
        host.history.drop_telemetry()  # the run's own samples, from its start; this workbench's own follow them
        host.load_records([record])
        if host.state.status == "incomplete":  # no end yet: it is running, elsewhere
            host.state.status = "running"
            host.show_state()
        follower = attached.follower
        if follower.thinned or follower.stride > 1:
            from workloads.rundir.segments import THIN_EVERY

            every = follower.stride * (THIN_EVERY if follower.thinned else 1)
            host.say(f"a long run: its older telemetry is plotted from 1 sample in {every}; the report "
                     "reads every one", "dim")
        self._say_events_left_out(follower)
        host.say(f"attached to {attached.live.id}: s stops it; quitting the workbench leaves it running", "bold")
        self._follow_timer = host.set_interval(FOLLOW_S, self._follow)

    def _say_events_left_out(self, follower: Any) -> None:
        """What of the run's events the attach did not read: the older ones of a run larger than it reads, lines
        longer than a run writes (a run directory someone else wrote)."""
        from tui.store.follow import ATTACH_EVENTS
        from workloads.rundir.tail import ATTACH_BYTES, MAX_LINE

        if follower.older_events:
            shown = follower.last_events
            self.host.say(f"a long run: only its last {shown:,} event{'' if shown == 1 else 's'} shown (and its "
                          f"start); older ones are left out, as the workbench reads at most {ATTACH_EVENTS:,} "
                          f"events or {format_bytes(ATTACH_BYTES)} of them (the report reads every one)", "yellow")
        if follower.long_lines:
            self.host.say(f"{follower.long_lines:,} event line(s) longer than {format_bytes(MAX_LINE)} (no run writes "
                          "one) passed over", "yellow")

    # following ------------------------------------------------------------------------------------
    def _follow(self) -> None:
        """The follow timer's tick: the attached run's new lines are read off the UI thread, one read at a time."""
        attached = self.attached
        if attached is None or self.polling:
            return
        self.polling = True
        self._thread(partial(self._poll_attached, attached), "follow", "following the attached run")

    def _poll_attached(self, attached: AttachedRun) -> None:
        try:
            with self._follow_lock:   # unfollow closes the follower under the same lock, never mid-read
                if attached is not self.attached:
                    return
                events, samples = attached.poll()
        except BaseException:
            self.host.call_from_thread(setattr, self, "polling", False)
            raise
        self.host.call_from_thread(self._followed, attached, events, samples)

    def _followed(self, attached: AttachedRun, events: list[protocol.Event], samples: list[dict]) -> None:
        from workloads import protocol

        host = self.host
        self.polling = False
        if attached is not self.attached:
            return  # detached (or another run attached) while the lines were read
        run_id = attached.live.id
        # into the poller's inbox, as this workbench's own run's events and samples
        for event in events:
            host.poller.put_event(run_id, event, wake=not isinstance(event, protocol.Step))
        if host.sampler is None:  # else this workbench samples the same devices itself, now
            for sample in samples:
                host.poller.put_sample_line(sample)
        if attached.gone:
            host.say(f"run {run_id}: its process is gone without recording an end (killed?); its record "
                     f"ends where {attached.live.path} ends", "bold red")
            host.state.status = "failed"
            host.show_state()
        if not attached.following:
            self.unfollow(keep=True)

    def unfollow(self, keep: bool = False) -> None:
        """Stop following the attached run (it ended, or another is shown); ``keep``: it stays on screen."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        if self.attached is not None:
            with self._follow_lock:
                self.attached.follower.close()
            if not keep:
                self.attached = None

    # stopping and starting -----------------------------------------------------------------------
    def ask_stop(self, live: LiveRun) -> None:
        from tui.store.live import STOP_GRACE_S as LIVE_STOP_GRACE_S, not_provably, records
        from tui.workbench.panes.confirm import Confirm

        # not offered on live.json's word: the process must hold the run's files open for writing now (a read of
        # /proc/<pid>/fd, under a millisecond); stop_live checks again as it signals
        if not records(live.pid, live.path):
            self.host.say(f"cannot stop it: {not_provably(live)}", "bold red")
            return
        question = (f"Stop {live.workload or 'the run'} {live.id} (pid {live.pid})? SIGTERM, then SIGKILL after "
                    f"{LIVE_STOP_GRACE_S:.0f} s if it is still there.")
        self.host.push_screen(Confirm(question, "Stop it", "Leave it running"),
                              lambda yes: self._thread(partial(self._stop_live, live), "stop-live",
                                                       "stopping a run in progress") if yes else None)

    def _stop_live(self, live: LiveRun) -> None:
        from tui.store.live import STOP_GRACE_S as LIVE_STOP_GRACE_S, stop_live

        self._say_from_thread(f"stopping {live.id} (SIGTERM, SIGKILL after {LIVE_STOP_GRACE_S:.0f} s)...", "yellow")
        said = stop_live(live, say=lambda line: self._say_from_thread(line, "yellow"))
        self._say_from_thread(said, "bold")

    def start_detached(self) -> None:
        """The launcher's workload, started detached (`cardbench run ... --detach`), then attached to."""
        host = self.host
        if host.session.running:
            host.say("a run of this workbench is active: stop it (s) first", "yellow")
            return
        name = host.selected_workload
        try:
            args = build_args(name, host.launcher.values(name))
        except BadValue as exc:
            host.say(f"cannot start {name}: {exc}", "bold red")
            return
        host.launcher.start_when_sure(lambda: self._thread(partial(self._start_detached, name, args), "detach",
                                                           "starting a detached run"))

    def _start_detached(self, name: str, args: list[str]) -> None:
        from tui.detach import DEFAULT_LOG, start_detached
        from tui.store.live import wait_for_live

        say = self._say_from_thread
        say(f"starting {name} {' '.join(args)} detached: it goes on after the workbench quits", "bold")
        root = self.host.store.root
        try:
            pid = start_detached(["run", name, *args], runs_dir=root)
        except OSError as exc:
            say(f"cannot start {name} detached: {exc.strerror or exc}", "bold red")
            return
        live = wait_for_live(root, pid, DETACHED_APPEARS_S)
        if live is None:
            say(f"the detached {name} (pid {pid}) did not record a run; see {root / DEFAULT_LOG}", "bold red")
            return
        self.host.call_from_thread(self.attach, live)
