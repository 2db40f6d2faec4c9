"""The workbench and runs in progress recorded by another process on this machine (detached, or in another
terminal: `tui.store.live`): r lists them, attaching rebuilds the run from disk then follows its files off the UI
thread (`tui.store.follow`), s stops one after asking, D starts the launcher's workload detached.

A mixin of `tui.workbench.app.Workbench`; its attributes are the app's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from tui.workbench.launch import BadValue, build_args
from tui.workbench.panes.messages import StepsArrived, WorkloadEvent
from workloads.facts.formatting import format_bytes

if TYPE_CHECKING:
    from workloads import protocol
    from tui.store.follow import AttachedRun
    from tui.store.live import LiveRun

# what follows is imported at the first r, attach or D, not at start-up: the first frame needs none of it (the
# live-run store and psutil, the follower, the detacher, the runs screen: a fifth of the workbench's imports)

FOLLOW_S = 0.5         # how often an attached run's files are read for what it appended
DETACHED_APPEARS_S = 60.0  # a run started detached (D) records its run directory within this


class AttachMixin:
    # runs in progress on this machine: detached, or in another terminal ------------------------
    def action_live_runs(self) -> None:
        self._list_live_runs()

    @work(thread=True, exclusive=True, exit_on_error=False, group="live-runs", description="listing runs in progress")
    def _list_live_runs(self) -> None:
        from tui.workbench.panes.live_runs import LiveRunsScreen
        from tui.store.live import live_runs

        # every run directory's pid file is read: off the UI thread (a runs dir on a network disk)
        runs = live_runs(self.store.root)
        self.call_from_thread(self.push_screen, LiveRunsScreen(runs), self._live_run_chosen)

    def _live_run_chosen(self, choice: tuple[str, LiveRun] | None) -> None:
        if choice is None:
            return
        what, live = choice
        if what == "attach":
            self.attach(live)
        else:
            self.ask_stop(live)

    def attach(self, live: LiveRun) -> bool:
        """Show a run in progress: its history from disk, then what it appends (plots, log, state)."""
        if self.session.running:
            self.log_pane.say("a run of this workbench is active: stop it (s) or let it finish, then attach", "yellow")
            return False
        from tui.workbench.panes.live_runs import describe

        self._unfollow()
        self.log_pane.say(f"attaching to {describe(live)}...", "bold")
        self._read_attached(live)
        return True

    @work(thread=True, exclusive=True, exit_on_error=False, group="attach", description="reading a run in progress")
    def _read_attached(self, live: LiveRun) -> None:
        from tui.store import RunStoreError
        from tui.store.follow import AttachedRun, RunFollower

        # a day-long run takes seconds to read: off the UI thread
        follower = RunFollower(live.path)
        try:
            record = follower.record()
        except RunStoreError as exc:
            follower.close()
            self.call_from_thread(self.log_pane.say, f"cannot attach to {live.id}: {exc}", "bold red")
            return
        self.call_from_thread(self._show_attached, AttachedRun(live, follower), record)

    def _show_attached(self, attached: AttachedRun, record: Any) -> None:
        self._unfollow()
        self.attached = attached
        self.history.drop_runs()
        self.history.drop_telemetry()  # the run's own samples, from its start; this workbench's own follow them
        self.load_records([record])
        if self.state.status == "incomplete":  # no end yet: it is running, elsewhere
            self.state.status = "running"
            self._show_state()
        follower = attached.follower
        if follower.thinned or follower.stride > 1:
            from workloads.rundir.segments import THIN_EVERY

            every = follower.stride * (THIN_EVERY if follower.thinned else 1)
            self.log_pane.say(f"a long run: its older telemetry is plotted from 1 sample in {every}; the report "
                              "reads every one", "dim")
        self._say_events_left_out(follower)
        self.log_pane.say(f"attached to {attached.live.id}: s stops it; quitting the workbench leaves it running",
                          "bold")
        self._follow_timer = self.set_interval(FOLLOW_S, self._follow)

    def _say_events_left_out(self, follower: Any) -> None:
        """What of the run's events the attach did not read: the older ones of a run larger than it reads, lines
        longer than a run writes (a run directory someone else wrote)."""
        from tui.store.follow import ATTACH_EVENTS
        from workloads.rundir.tail import ATTACH_BYTES, MAX_LINE

        if follower.older_events:
            shown = follower.last_events
            self.log_pane.say(f"a long run: only its last {shown:,} event{'' if shown == 1 else 's'} shown (and its "
                              f"start); older ones are left out, as the workbench reads at most {ATTACH_EVENTS:,} "
                              f"events or {format_bytes(ATTACH_BYTES)} of them (the report reads every one)", "yellow")
        if follower.long_lines:
            self.log_pane.say(f"{follower.long_lines:,} event line(s) longer than {format_bytes(MAX_LINE)} (no run "
                              "writes one) passed over", "yellow")

    def _follow(self) -> None:
        """The follow timer's tick: the attached run's new lines are read off the UI thread, one read at a time."""
        attached = self.attached
        if attached is None or self._polling:
            return
        self._polling = True
        self._poll_attached(attached)

    @work(thread=True, exit_on_error=False, group="follow", description="following the attached run")
    def _poll_attached(self, attached: AttachedRun) -> None:
        try:
            with self._follow_lock:   # _unfollow closes the follower under the same lock, never mid-read
                if attached is not self.attached:
                    return
                events, samples = attached.poll()
        except BaseException:
            self.call_from_thread(setattr, self, "_polling", False)
            raise
        self.call_from_thread(self._followed, attached, events, samples)

    def _followed(self, attached: AttachedRun, events: list[protocol.Event], samples: list[dict]) -> None:
        from workloads import protocol

        self._polling = False
        if attached is not self.attached:
            return  # detached (or another run attached) while the lines were read
        run_id = attached.live.id
        for event in events:
            if isinstance(event, protocol.Step):
                self.history.add_step(run_id, event)
                self.post_message(StepsArrived(run_id, event))
            else:
                self.post_message(WorkloadEvent(run_id, event))
        if self.sampler is None:  # else this workbench samples the same devices itself, now
            for sample in samples:
                self.history.add_sample_line(sample)
        if attached.gone:
            self.log_pane.say(f"run {run_id}: its process is gone without recording an end (killed?); its record "
                              f"ends where {attached.live.path} ends", "bold red")
            self.state.status = "failed"
            self._show_state()
        if not attached.following:
            self._unfollow(keep=True)

    def _unfollow(self, keep: bool = False) -> None:
        """Stop following the attached run (it ended, or another is shown); ``keep``: it stays on screen."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        if self.attached is not None:
            with self._follow_lock:
                self.attached.follower.close()
            if not keep:
                self.attached = None

    def ask_stop(self, live: LiveRun) -> None:
        from tui.workbench.panes.confirm import Confirm
        from tui.store.live import STOP_GRACE_S as LIVE_STOP_GRACE_S, not_provably, records

        # not offered on live.json's word: the process must hold the run's files open for writing now (a read of
        # /proc/<pid>/fd, under a millisecond); stop_live checks again as it signals
        if not records(live.pid, live.path):
            self.log_pane.say(f"cannot stop it: {not_provably(live)}", "bold red")
            return
        question = (f"Stop {live.workload or 'the run'} {live.id} (pid {live.pid})? SIGTERM, then SIGKILL after "
                    f"{LIVE_STOP_GRACE_S:.0f} s if it is still there.")
        self.push_screen(Confirm(question, "Stop it", "Leave it running"),
                         lambda yes: self._stop_live(live) if yes else None)

    @work(thread=True, exit_on_error=False, group="stop-live", description="stopping a run in progress")
    def _stop_live(self, live: LiveRun) -> None:
        from tui.store.live import STOP_GRACE_S as LIVE_STOP_GRACE_S, stop_live

        self.call_from_thread(self.log_pane.say, f"stopping {live.id} (SIGTERM, SIGKILL after "
                                                 f"{LIVE_STOP_GRACE_S:.0f} s)...", "yellow")
        said = stop_live(live, say=lambda line: self.call_from_thread(self.log_pane.say, line, "yellow"))
        self.call_from_thread(self.log_pane.say, said, "bold")

    def action_start_detached(self) -> None:
        """The launcher's workload, started detached (`cardbench run ... --detach`), then attached to."""
        if self.session.running:
            self.log_pane.say("a run of this workbench is active: stop it (s) first", "yellow")
            return
        name = self.selected_workload
        try:
            args = build_args(name, self.launcher.values(name))
        except BadValue as exc:
            self.log_pane.say(f"cannot start {name}: {exc}", "bold red")
            return
        self.launcher.start_when_sure(lambda: self._start_detached(name, args))

    @work(thread=True, exit_on_error=False, group="detach", description="starting a detached run")
    def _start_detached(self, name: str, args: list[str]) -> None:
        from tui.detach import DEFAULT_LOG, start_detached
        from tui.store.live import wait_for_live

        say = self.log_pane.say
        self.call_from_thread(say, f"starting {name} {' '.join(args)} detached: it goes on after the workbench "
                                   "quits", "bold")
        root = self.store.root
        try:
            pid = start_detached(["run", name, *args], runs_dir=root)
        except OSError as exc:
            self.call_from_thread(say, f"cannot start {name} detached: {exc.strerror or exc}", "bold red")
            return
        live = wait_for_live(root, pid, DETACHED_APPEARS_S)
        if live is None:
            self.call_from_thread(say, f"the detached {name} (pid {pid}) did not record a run; see "
                                       f"{root / DEFAULT_LOG}", "bold red")
            return
        self.call_from_thread(self.attach, live)

