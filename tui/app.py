"""The workbench: a Textual app over a run session and the telemetry sampler.

    app = build_app(runs_dir)          # the CLI and the tests build it the same way
    app.run()

Workloads run as children through a `tui.session.RunSession` (the same one
`cardbench run` and the headless suite use): an asyncio worker reads their
events, which the session has already recorded in the run directory, and posts
small messages; the panes redraw from reactives. The sampler runs on its own
thread: it records each sample through the session and posts it here
(thread-safe `post_message`). The app never imports torch and never waits on a child.

`tui.screenshot` renders the same screen off-screen from runs on disk, for the
headless report.

A run recorded by another process on this machine (`cardbench run`, detached or
in another terminal: `tui.run_live`) is listed with r; attaching rebuilds its
plots, log and state from disk and then follows its files (`tui.run_follow`);
s stops it after asking. Quitting leaves such a run running: only this
workbench's own runs stop with it. D starts the launcher's workload detached.

Work on the CPU while accelerators are listed (`tui.cpu_trap`, held by the session)
is the loudest thing on the screen: `tui.panes.banner`, across the top.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
import time
from contextlib import aclosing
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from textual import work
from textual.worker import Worker, WorkerState
from textual.app import App
from textual.containers import Horizontal
from textual.widgets import Button, Footer, Input

from tui.cpu_trap import alarm_lines
from tui.detach import DEFAULT_LOG, start_detached
from tui.history import History
from tui.launch import BadValue, build_args
from tui.panes import keys
from tui.panes.banner import CpuBanner
from tui.panes.confirm import Confirm
from tui.panes.device import DevicePane
from tui.panes.doctor import DoctorScreen, log_lines as doctor_log_lines
from tui.panes.export import export_in_background
from tui.panes.launcher import LauncherPane
from tui.panes.live_runs import LiveRunsScreen, describe
from tui.panes.log import LogPane
from tui.panes.messages import DoctorFinished, StepsArrived, TelemetryArrived, WorkloadEvent, WorkloadLog
from tui.panes.plots import PlotsPane
from tui.panes.trial_banner import TrialBanner
from tui.run_follow import AttachedRun, RunFollower
from tui.run_index import report_run_dirs
from workloads.rundir.segments import THIN_EVERY
from tui.run_live import STOP_GRACE_S as LIVE_STOP_GRACE_S, LiveRun, live_runs, stop_live, wait_for_live
from tui.run_state import RunState
from tui.run_times import run_span, run_times
from tui.runs import RunStore, RunStoreError
from tui.session import STOP_GRACE_S, STORE_FAULT, RunnerFactory, RunSession
from tui.workbench_sampler import TelemetrySource, default_telemetry_source
from workloads import exit_codes, protocol, registry
from workloads.errors import first_line

PLOT_REFRESH_S = 0.5   # plots repaint at most this often, however fast steps arrive
FOLLOW_S = 0.5         # how often an attached run's files are read for what it appended
DETACHED_APPEARS_S = 60.0  # a run started detached (D) records its run directory within this
# how long a hang-up (closed SSH session) waits for a clean exit before a hard one
HANGUP_EXIT_S = 3.0


class Workbench(App):
    """cardbench's face: devices, launcher, plots and log on one screen."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere (tests, bench) find it
    TITLE = "cardbench"
    # nothing focused at start: keys go to the bindings, and the launcher is not scrolled to a focused button
    AUTO_FOCUS = None
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]

    # runs in progress (r) and a detached start (D: in the palette and the runs list, not in the footer, which
    # at 80 columns holds no more): here until keys.py takes them
    BINDINGS = keys.BINDINGS

    def __init__(self, runs_dir: str | os.PathLike[str] | None = None, *,
                 telemetry_source: TelemetrySource | None = None, start_sampler: bool = True,
                 clock: Callable[[], float] | None = None, runner_factory: RunnerFactory | None = None,
                 workloads: Sequence[str] | None = None, run_checks: Callable[[], Iterable[Any]] | None = None,
                 export_dir: str | os.PathLike[str] | None = None, stop_grace_s: float = STOP_GRACE_S):
        super().__init__()
        # no decorative animation: over SSH every frame costs bandwidth, and on a busy host, CPU a key press needs
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            self.animation_level = "none"
        self.store = RunStore(runs_dir)
        self.session = RunSession(self.store, runner_factory=runner_factory, grace_s=stop_grace_s,
                                  on_log=self._child_said)
        self.clock = clock or time.time
        self.telemetry_source = telemetry_source or default_telemetry_source
        self.start_sampler = start_sampler
        self.workload_names = list(workloads or registry.names())
        self.run_checks = run_checks
        self.export_dir = Path(export_dir) if export_dir else None
        self.history = History()
        self.loaded_runs: list[Path] = []
        self.attached: AttachedRun | None = None   # a run in progress recorded by another process, followed here
        self._follow_timer: Any = None
        self._follow_lock = threading.Lock()  # a read of the attached run (a thread) and its close (_unfollow)
        self._polling = False                 # a read is in flight: the next tick waits for it
        self.sampler: Any = None
        self.latest_sample: Any = None
        self.state = RunState()
        self._unwatch_signals: Callable[[], None] | None = None
        self._hangup_task: asyncio.Future | None = None
        self._replay_t: float | None = None   # while a run read from disk is logged: its event's own time
        self.panes_built = asyncio.Event()  # set once the fields and plots are mounted (after the first frame)
        self._bindings = keys.with_workload_keys(self.workload_names, self._bindings)

    # layout -----------------------------------------------------------------------------
    def compose(self):
        # kept as attributes: `query_one` on the app searches the top screen, which may be a modal
        self.devices = DevicePane(id="devices")
        self.launcher = LauncherPane(self.workload_names, id="launcher")
        self.plots = PlotsPane(self.history, id="plots")
        self.log_pane = LogPane(clock=self._log_time, id="log")
        self.cpu_banner = CpuBanner(id="cpu-banner")
        self.trial_banner = TrialBanner(id="trial-banner")   # hidden unless `cardbench trial` set a trial
        yield self.trial_banner
        yield self.cpu_banner
        yield self.devices
        with Horizontal(id="middle"):
            yield self.launcher
            yield self.plots
        yield self.log_pane
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        # a closed SSH session (SIGHUP) or a `kill` must not leave a workload training on the card
        self._unwatch_signals = self.session.stop_on_signals((signal.SIGHUP, signal.SIGTERM), then=self._on_signal)
        span = keys.key_span(len(self.workload_names))
        self.log_pane.say(f"runs are kept in {self.store.root}; {span} choose a workload, "
                          "s starts it, d runs the doctor, e exports, q quits")

    async def on_ready(self) -> None:
        # the first frame is out: now the fields, the plots and the sampler (start-up stays near an empty app's)
        await self.launcher.build()
        await self.plots.build()
        self.set_interval(PLOT_REFRESH_S, self._tick)
        if self.start_sampler:
            self._start_sampler()
        # what start-up built lives as long as the app: keep it out of the collector's full passes,
        # which otherwise walk it all and stall a key press on a busy host
        gc.freeze()
        self.panes_built.set()

    def _start_sampler(self) -> None:
        try:
            sampler = self.session.attach_sampler(self.telemetry_source(self.post_sample))
            sampler.start()
        except Exception as exc:  # noqa: BLE001 - no telemetry is a degraded workbench, not a dead one
            self.log_pane.say(f"telemetry could not start ({first_line(exc, typed=True)}); device readings show N/A",
                              "yellow")
            return
        self.sampler = sampler

    def _tick(self) -> None:
        self.plots.refresh_plots()

    # telemetry --------------------------------------------------------------------------
    def post_sample(self, sample: Any) -> None:
        """Show a telemetry `Sample`; safe from any thread (the sampler calls it; the session records it)."""
        self.post_message(TelemetryArrived(sample))

    def on_telemetry_arrived(self, message: TelemetryArrived) -> None:
        self.latest_sample = message.sample
        self.history.add_sample(message.sample)
        self.devices.sample = message.sample
        self.plots.follow_data()
        trap = self.session.cpu_trap
        if self.sampler is None:  # else the session saw it already, on the sampler's thread, before this message
            trap.see_sample(message.sample)
        trap.see_probe(getattr(self.sampler, "torch_probe", None))
        self._show_cpu_banner()

    # work on the CPU while accelerators are listed -----------------------------------------
    def _requested_args(self, name: str) -> list[str]:
        device = (self.launcher.values(name).get("device") or "").strip()
        return ["--device", device] if device else []

    def _show_cpu_banner(self) -> None:
        name = self.selected_workload
        self.cpu_banner.show_trap(self.state.cpu_alarm, self.session.cpu_trap, name, self._requested_args(name))

    def on_input_changed(self, event: Input.Changed) -> None:
        if (event.input.id or "").endswith("-device"):
            self._show_cpu_banner()

    # workload selection and start/stop ---------------------------------------------------
    @property
    def runner(self) -> Any:
        """The open run's child, or None."""
        return self.session.runner

    @property
    def session_runs(self) -> list[Path]:
        return self.session.runs

    @property
    def selected_workload(self) -> str:
        return self.launcher.selected

    def action_select_workload(self, index: int) -> None:
        if 0 <= index < len(self.workload_names):
            with self.batch_update():
                self.launcher.select(self.workload_names[index])
                self._show_cpu_banner()

    def action_leave_field(self) -> None:
        # nothing focused: every key goes to the workbench's bindings
        self.screen.set_focus(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.screen.set_focus(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start-stop":
            self.action_start_stop()

    def action_start_stop(self) -> None:
        if self.session.running:
            self.stop_workload()
        elif self.attached is not None and self.attached.following:
            self.ask_stop(self.attached.live)
        elif registry.spec_for(self.selected_workload).detached:
            self.action_start_detached()  # hours long (a soak): it must outlive the workbench and the SSH session
        else:
            # a value far above the usual (a burst of keys in the wrong field) is asked about first
            self.launcher.start_when_sure(self.start_workload)

    def start_workload(self, name: str | None = None) -> bool:
        name = name or self.selected_workload
        log = self.log_pane
        try:
            args = build_args(name, self.launcher.values(name))
        except BadValue as exc:
            log.say(f"cannot start {name}: {exc}", "bold red")
            self.notify(str(exc), title="bad value", severity="error")
            return False
        try:
            run = self.session.start(name, args, source="workbench")
        except RunStoreError as exc:
            log.say(f"cannot start {name}: {exc}", "bold red")
            self.notify(str(exc), severity="error")
            return False
        self._unfollow()  # an attached run that ended leaves the screen to this one
        self.history.drop_runs()
        self.history.run(run.id, label=name, unit=registry.spec_for(name).unit or None)
        self.state = RunState.starting(name, run.id, args)
        self._show_state()
        warning = self.session.cpu_trap.before_run(name, args)
        if warning:
            log.say(f"WARNING: {warning}", "bold red")
        log.say(f"starting {name} {' '.join(args)}  (run {run.path})", "bold")
        self._consume(run.id)
        return True

    def stop_workload(self) -> None:
        if not self.session.running or self.session.stopping:
            return
        self.log_pane.say(f"stopping {self.state.workload} (SIGTERM, SIGKILL after {self.session.grace_s:.0f} s)...",
                          "yellow")
        self.session.request_stop()

    @work(exclusive=False, exit_on_error=False, group="workload", description="workload events")
    async def _consume(self, run_id: str) -> None:
        # the session closes the run and stops the child however this ends (the app closing cancels it)
        async with aclosing(self.session.events()) as events:
            async for event in events:
                if isinstance(event, protocol.Step):
                    self.history.add_step(run_id, event)
                    self.post_message(StepsArrived(run_id, event))
                else:
                    self.post_message(WorkloadEvent(run_id, event))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker of the app runs with exit_on_error=False: one that fails is said here, in one place, and a
        failed workload consumer ends the run's state (the screen said "running" for ever)."""
        worker = event.worker
        if event.state != WorkerState.ERROR or not self.is_running:
            return
        what = worker.description or worker.name or "a background task"
        self.log_pane.say(f"{what} failed: {first_line(worker.error, typed=True)}", "bold red")
        if worker.group == "workload" and self.state.active:
            self.state.status = "failed"
            self._show_state()

    def _child_said(self, run_id: str, line: str) -> None:
        self.post_message(WorkloadLog(run_id, line))

    def on_steps_arrived(self, message: StepsArrived) -> None:
        if message.run_id == self.state.run_id:
            self.state.see_step(message.step)
            self._show_state(banner=False)  # a step changes no device, alarm or field: the banner stays as it is

    def on_workload_event(self, message: WorkloadEvent) -> None:
        event = message.event
        self.log_pane.event(event)
        if message.run_id != self.state.run_id:
            return
        self.state.see_event(event)
        if isinstance(event, protocol.Start):
            self.history.see_device(message.run_id, event.device)
        elif event is self.state.cpu_alarm:
            self.notify(". ".join(alarm_lines(event)), title="running on the CPU", severity="error", timeout=30)
        if isinstance(event, protocol.WorkloadWarning) and event.code == STORE_FAULT:
            self.notify(event.message, title="run dir not writable", severity="error", timeout=30)
        if isinstance(event, protocol.Error):
            self.notify(event.message[:200], title="workload error", severity="error")
        elif isinstance(event, protocol.End):
            attached = self.attached
            run_path = (attached.live.path if attached is not None and attached.live.id == message.run_id
                        else self.session.runs[-1] if self.session.runs else None)
            self.log_pane.say(f"run {message.run_id} {event.status}; everything is in {run_path}", "dim")
        self._show_state()

    def on_workload_log(self, message: WorkloadLog) -> None:
        self.log_pane.say(message.line, "dim")

    def _show_state(self, banner: bool = True) -> None:
        launcher = self.launcher
        launcher.state = self.state
        button = launcher.query_one("#start-stop", Button)
        active = self.state.active
        button.label = "stop (s)" if active else "start (s)"
        button.variant = "error" if active else "success"
        if banner:
            self.devices.mark_unused(self.state.on_cpu)
            self._show_cpu_banner()
        if self.state.run_id:
            # a small terminal: the run's state sits below the fields, keep it in view
            launcher.call_after_refresh(launcher.scroll_end, animate=False)

    # plots, export, doctor ---------------------------------------------------------------
    def action_cycle_plots(self) -> None:
        self.plots.cycle()

    def action_export(self) -> None:
        if self.state.active:
            # the export runs the doctor's probe and collect_env: they would share the device and the
            # CPU with the training, and the bundle would hold a run without its end
            self.log_pane.say("a run is active: stop it (s) or let it finish, then export (e)", "yellow")
            self.notify("stop the run or let it finish first", title="export")
            return
        self.log_pane.say("exporting the report bundle...", "bold")
        # the runs dir is listed and the runs' secrets learnt off the UI thread; the screen is drawn on it
        session_runs, loaded = list(self.session.runs), list(self.loaded_runs)
        export_in_background(self, lambda: report_run_dirs(self.store, session_runs, loaded),
                             self.export_dir or Path.cwd())

    def action_backup(self) -> None:
        from tui.panes.backup_worker import start_backup  # loaded at the first backup, not at start-up

        report_dirs = [Path.cwd(), Path.cwd() / "reports", *([self.export_dir] if self.export_dir else [])]
        start_backup(self, self.store.root, self.log_pane.say, report_dirs=report_dirs)

    def action_doctor(self) -> None:
        screen = DoctorScreen(self.run_checks)

        def closed(_: Any) -> None:
            if screen.checks is not None:  # what torch sees, by the doctor's word: the banner follows it
                self.session.cpu_trap.see_checks(screen.checks)
                self._show_cpu_banner()

        self.push_screen(screen, closed)

    def on_doctor_finished(self, message: DoctorFinished) -> None:
        for line, style in doctor_log_lines(message.checks):
            self.log_pane.say(line, style)

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

    # runs in progress on this machine: detached, or in another terminal ------------------------
    def action_live_runs(self) -> None:
        self._list_live_runs()

    @work(thread=True, exclusive=True, exit_on_error=False, group="live-runs", description="listing runs in progress")
    def _list_live_runs(self) -> None:
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
        self._unfollow()
        self.log_pane.say(f"attaching to {describe(live)}...", "bold")
        self._read_attached(live)
        return True

    @work(thread=True, exclusive=True, exit_on_error=False, group="attach", description="reading a run in progress")
    def _read_attached(self, live: LiveRun) -> None:
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
            every = follower.stride * (THIN_EVERY if follower.thinned else 1)
            self.log_pane.say(f"a long run: its older telemetry is plotted from 1 sample in {every}; the report "
                              "reads every one", "dim")
        self.log_pane.say(f"attached to {attached.live.id}: s stops it; quitting the workbench leaves it running",
                          "bold")
        self._follow_timer = self.set_interval(FOLLOW_S, self._follow)

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
        question = (f"Stop {live.workload or 'the run'} {live.id} (pid {live.pid})? SIGTERM, then SIGKILL after "
                    f"{LIVE_STOP_GRACE_S:.0f} s if it is still there.")
        self.push_screen(Confirm(question, "Stop it", "Leave it running"),
                         lambda yes: self._stop_live(live) if yes else None)

    @work(thread=True, exit_on_error=False, group="stop-live", description="stopping a run in progress")
    def _stop_live(self, live: LiveRun) -> None:
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

    # quitting -----------------------------------------------------------------------------
    async def action_quit(self) -> None:
        async def answered(yes: bool | None) -> None:
            if yes:
                await self._stop_children()
                self.exit()

        if not self.session.running:
            await answered(True)
            return
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
        await self.session.stop()
        if self.sampler is not None:
            self.sampler.stop(timeout=1.0)
            self.sampler = None

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from keys.system_commands(self)


def build_app(runs_dir: str | os.PathLike[str] | None = None, *, telemetry_source: TelemetrySource | None = None,
              start_sampler: bool = True, clock: Callable[[], float] | None = None,
              runner_factory: RunnerFactory | None = None, **options: Any) -> Workbench:
    """The workbench, for the CLI and the tests alike.

    ``telemetry_source``: a `tui.workbench_sampler.TelemetrySource` (default: the real 1 Hz sampler). With
    ``start_sampler=False`` nothing samples and tests show fakes with ``app.post_sample``.
    ``runner_factory(name, args, sink)`` returns a `Runner` (tests start small scripts).
    """
    return Workbench(runs_dir, telemetry_source=telemetry_source, start_sampler=start_sampler, clock=clock,
                     runner_factory=runner_factory, **options)


def main(runs_dir: str | os.PathLike[str] | None = None) -> int:
    app = build_app(runs_dir)
    app.run()
    return app.return_code or 0
