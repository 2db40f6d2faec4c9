"""The workbench: a Textual app over a run session and the telemetry sampler.

    app = build_app(runs_dir)          # the CLI and the tests build it the same way
    app.run()

Workloads run as children through a `tui.session.RunSession` (the same one
`cardbench run` and the headless suite use): an asyncio worker reads their
events, which the session has already recorded in the run directory, and posts
into the one poller's inbox (`tui.workbench.app.poller`). The sampler runs on its own thread: it records each
sample through the session and puts it in the same inbox. Each poll takes the inbox into the history and the run's
state and posts one immutable snapshot (`tui.workbench.view.snapshot`); the panes render snapshots. The app never imports torch and never waits on a child.

`tui.workbench.screenshot` renders the same screen off-screen from runs on disk, for the
headless report.

The app owns four controllers and calls them; each reaches the app only through a small `typing.Protocol` that
names what it needs: runs in progress recorded by another process (r, attach, D), `tui.workbench.app.attach`'s
`RunsInProgress`; runs read from disk shown on the screen, `tui.workbench.app.replay`'s `Replay`; quitting and
hang-ups, `tui.workbench.app.lifecycle`'s `Lifecycle`; the start (what the first frame waits for and what is made
just after it), `tui.workbench.app.startup`'s `Startup`.

Work on the CPU while accelerators are listed (`tui.cpu_trap`, held by the session)
is the loudest thing on the screen: `tui.workbench.panes.banner`, across the top.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from textual.worker import Worker, WorkerState
from textual.app import App
from textual.containers import Horizontal
from textual.widgets import Button, Footer, Input

from tui import i18n
from tui.workbench.app.attach import RunsInProgress
from tui.workbench.app.lifecycle import Lifecycle
from tui.workbench.app.poller import LivePoller
from tui.workbench.app.ready_run import ReadyRun
from tui.workbench.app.replay import Replay
from tui.workbench.app.startup import Startup
from tui.workbench.app.workload_run import WORKER_GROUP, WorkloadRun
from tui.workbench.panes import keys
from tui.workbench.panes.banner import CpuBanner
from tui.workbench.panes.device import DevicePane
from tui.workbench.panes.launcher import LauncherPane
from tui.workbench.panes.log import LogPane
from tui.workbench.panes.messages import DoctorFinished, LiveDataArrived, SnapshotReady, WorkloadLog
from tui.workbench.panes.plots import PlotsPane
from tui.workbench.panes.trial_banner import TrialBanner
from tui.workbench import entries
from tui.workbench.view.run_state import RunState
from workloads.errors import first_line

if TYPE_CHECKING:
    from tui.session import RunnerFactory, RunSession
    from tui.store import RunStore
    from tui.store.follow import AttachedRun
    from tui.workbench.history import History
    from tui.workbench.sampler import TelemetrySource
    from workloads import protocol


class Workbench(App):
    """cardbench's face: devices, launcher, plots and log on one screen."""

    CSS_PATH = Path(__file__).parent.parent / "app.tcss"  # absolute: subclasses elsewhere (tests, bench) find it
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
                 export_dir: str | os.PathLike[str] | None = None, stop_grace_s: float | None = None):
        """``stop_grace_s``: SIGTERM to SIGKILL when a run is stopped (None: the session's, `tui.session.STOP_GRACE_S`)."""
        super().__init__()
        # no decorative animation: over SSH every frame costs bandwidth, and on a busy host, CPU a key press needs
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            self.animation_level = "none"
        self._runs_dir = runs_dir
        self._runner_factory = runner_factory
        self._stop_grace_s = stop_grace_s
        self.clock = clock or time.time
        self.telemetry_source = telemetry_source
        self.start_sampler = start_sampler
        self.workload_names = entries.names(workloads)   # the workloads, then readiness (a command)
        self.run_checks = run_checks
        self.export_dir = Path(export_dir) if export_dir else None
        self.loaded_runs: list[Path] = []
        self.sampler: Any = None
        self.latest_sample: Any = None
        self.state = RunState()
        self.panes_built = asyncio.Event()  # set once the fields and plots are mounted (after the first frame)
        # the controllers: each reaches the app through its own Protocol (AttachHost, LifecycleHost, ...)
        self.runs_in_progress = RunsInProgress(self)
        self.lifecycle = Lifecycle(self)
        self.replay = Replay(self)
        self.startup = Startup(self)
        self.poller = LivePoller(self)   # the one path of live data to the panes: inbox -> poll -> snapshot
        self.workload_run = WorkloadRun(self)
        self.ready_run = ReadyRun(self)   # the launcher's readiness entry: `cardbench ready` as a child
        self._bindings = keys.with_workload_keys(self.workload_names, self._bindings)

    # layout -----------------------------------------------------------------------------
    def compose(self):
        self._preset_breakpoints()
        # kept as attributes: `query_one` on the app searches the top screen, which may be a modal
        self.devices = DevicePane(id="devices")
        self.launcher = LauncherPane(self.workload_names, id="launcher")
        self.plots = PlotsPane(self.poller.request, id="plots")
        self.log_pane = LogPane(clock=self.replay.log_time, id="log")
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

    def _preset_breakpoints(self) -> None:
        """Give the screen the breakpoint classes (-narrow, -short...) of the size known now, before its first styling.

        Textual sets them at the screen's first Resize, after every widget was styled and laid out once: on a small
        terminal the first frame then showed the wide layout (launcher 42 wide, log 9 high at 80x24), and at any
        size the change restyled every widget again before the first frame. Set here, they are unchanged at the
        Resize: one styling, and the first frame has the layout of its size (test_small_screen). The rule is
        `Screen._on_resize`'s: per axis, the highest breakpoint not above the size; a size that differs at the
        Resize (the terminal changed meanwhile) sets its own classes there, as before."""
        width, height = self.size
        classes = {name: False for _, name in (*self.HORIZONTAL_BREAKPOINTS, *self.VERTICAL_BREAKPOINTS)}
        for size, points in ((width, self.HORIZONTAL_BREAKPOINTS), (height, self.VERTICAL_BREAKPOINTS)):
            fitting = [name for at, name in sorted(points) if size >= at]
            if fitting:
                classes[fitting[-1]] = True
        for name, on in classes.items():   # set_class: update_classes is newer than the Textual floor (6.3.0)
            self.screen.set_class(on, name, update=False)

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

    def session_made(self) -> bool:
        """Whether the session exists (made at its first use: an app closed before its first frame has none)."""
        return "session" in vars(self)

    @functools.cached_property
    def history(self) -> History:
        from tui.workbench.history import History

        return History()

    # start and end: the controllers' ------------------------------------------------------------
    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Textual's run, with the garbage collector held until the first frame is out (`Startup`)."""
        self.startup.hold_collector()
        try:
            return super().run(*args, **kwargs)
        finally:
            self.startup.release_collector()   # the app ended before its first frame

    async def on_ready(self) -> None:
        await self.startup.ready()
        self.panes_built.set()

    async def action_quit(self) -> None:
        await self.lifecycle.quit()

    async def on_unmount(self) -> None:
        await self.lifecycle.unmount()

    # runs from disk and runs in progress elsewhere: the controllers' -------------------------------
    @property
    def attached(self) -> AttachedRun | None:
        """A run in progress recorded by another process, followed here."""
        return self.runs_in_progress.attached

    def load_records(self, records: Sequence[Any]) -> None:
        """Show runs from disk (`Replay.load_records`)."""
        self.replay.load_records(records)

    def action_live_runs(self) -> None:
        self.runs_in_progress.list_runs()

    def action_start_detached(self) -> None:
        if entries.is_command(self.selected_workload):
            self.log_pane.say(i18n.say("ready.run.no_detach"), "yellow")
            return
        self.runs_in_progress.start_detached()

    def say(self, line: str, style: str = "") -> None:
        """A line in the log pane (the controllers' one way to speak)."""
        self.log_pane.say(line, style)

    # live data: the poller's inbox in, snapshots out ------------------------------------------
    def post_sample(self, sample: Any) -> None:
        """Show a telemetry `Sample`; safe from any thread (the sampler calls it; the session records it)."""
        self.poller.put_sample(sample)

    def take_sample(self, sample: Any) -> None:
        """A sample from the poller's inbox: into the history, and the CPU trap's."""
        self.latest_sample = sample
        self.history.add_sample(sample)
        trap = self.session.cpu_trap
        if self.sampler is None:  # else the session saw it already, on the sampler's thread, before the poll
            trap.see_sample(sample)
        trap.see_probe(getattr(self.sampler, "torch_probe", None))

    def wanted_plots(self) -> tuple[Sequence[int], bool]:
        return self.plots.wanted()

    def on_live_data_arrived(self, message: LiveDataArrived) -> None:
        self.poller.poll()

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        """One poll's snapshot on the screen: the devices, the run's state, the plots."""
        snapshot = message.snapshot
        with self.batch_update():
            if snapshot.sample is not None:   # the devices keep the last reading shown (a run's, before any)
                self.devices.sample = snapshot.sample
            self._render_state(snapshot.state)
            self.plots.show(snapshot)

    # work on the CPU while accelerators are listed -----------------------------------------
    def _requested_args(self, name: str) -> list[str]:
        device = (self.launcher.values(name).get("device") or "").strip()
        return ["--device", device] if device else []

    def _show_cpu_banner(self, state: RunState | None = None) -> None:
        # torch's newest word on the accelerator: the launcher's defaults follow it (sized for the CPU without one)
        sees = self.session.cpu_trap.view.sees
        if sees is False and self.launcher.torch_sees is not False:
            self.log_pane.say(i18n.say("workbench.launch.cpu_sized"), "yellow")
        self.launcher.follow_device(sees)
        name = self.selected_workload
        alarm = (state or self.state).cpu_alarm
        self.cpu_banner.show_trap(alarm, self.session.cpu_trap, name, self._requested_args(name))

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
            self.workload_run.stop()
        elif self.ready_run.running:
            self.ready_run.stop()
        elif self.attached is not None and self.attached.following:
            self.runs_in_progress.ask_stop(self.attached.live)
        elif entries.spec_for(self.selected_workload).detached:
            self.action_start_detached()  # hours long (a soak): it must outlive the workbench and the SSH session
        else:
            # a value far above the usual (a burst of keys in the wrong field) is asked about first
            self.launcher.start_when_sure(self.start_workload)

    def start_workload(self, name: str | None = None) -> bool:
        """Start ``name`` (the launcher's workload) with the launcher's fields (`WorkloadRun.start`; readiness,
        `ReadyRun.start`). One run at a time: the card is the thing measured."""
        name = name or self.selected_workload
        if self.session.running or self.ready_run.running:
            self.log_pane.say(i18n.say("ready.run.busy"), "yellow")
            return False
        if entries.is_command(name):
            return self.ready_run.start()
        return self.workload_run.start(name)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker of the app runs with exit_on_error=False: one that fails is said here, in one place, and a
        failed workload consumer ends the run's state (the screen said "running" for ever)."""
        worker = event.worker
        if event.state != WorkerState.ERROR or not self.is_running:
            return
        what = worker.description or worker.name or "a background task"
        self.log_pane.say(f"{what} failed: {first_line(worker.error, typed=True)}", "bold red")
        if worker.group == WORKER_GROUP and self.state.active:
            self.state.status = "failed"
            self.show_state()

    def _child_said(self, run_id: str, line: str) -> None:
        self.post_message(WorkloadLog(run_id, line))

    def take_event(self, run_id: str, event: protocol.Event) -> None:
        self.workload_run.take_event(run_id, event)

    def on_workload_log(self, message: WorkloadLog) -> None:
        self.log_pane.say(message.line, "dim")

    def show_state(self) -> None:
        """The app changed the run's state: the next snapshot shows it (the panes render nothing else)."""
        self.poller.request()

    def _render_state(self, state: RunState) -> None:
        """A snapshot's run state on the launcher and its button, the devices and the CPU banner."""
        launcher = self.launcher
        launcher.state = state
        button = launcher.query_one("#start-stop", Button)
        active = state.active
        button.label = "stop (s)" if active else "start (s)"
        button.variant = "error" if active else "success"
        self.devices.mark_unused(state.on_cpu)
        self._show_cpu_banner(state)
        if state.run_id:
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
        from tui.workbench.panes.export import choose_and_export
        from tui.workbench.view.export_runs import report_run_dirs

        # the runs dir is listed, each run read and its secrets learnt off the UI thread; the user picks the runs
        # (the finished ones checked), and the screen is drawn on the UI thread
        session_runs, loaded = list(self.session.runs), list(self.loaded_runs)
        choose_and_export(self, lambda: report_run_dirs(self.store, session_runs, loaded),
                          self.export_dir or Path.cwd())

    def action_backup(self) -> None:
        from tui.workbench.panes.backup_worker import start_backup  # loaded at the first backup, not at start-up

        report_dirs = [Path.cwd(), Path.cwd() / "reports", *([self.export_dir] if self.export_dir else [])]
        start_backup(self, self.store.root, self.log_pane.say, report_dirs=report_dirs)

    def action_doctor(self) -> None:
        from tui.workbench.panes.doctor import DoctorScreen

        screen = DoctorScreen(self.run_checks)

        def closed(_: Any) -> None:
            if screen.checks is not None:  # what torch sees, by the doctor's word: the banner follows it
                self.session.cpu_trap.see_checks(screen.checks)
                self._show_cpu_banner()

        self.push_screen(screen, closed)

    def on_doctor_finished(self, message: DoctorFinished) -> None:
        from tui.workbench.panes.doctor import log_lines as doctor_log_lines

        for line, style in doctor_log_lines(message.checks):
            self.log_pane.say(line, style)

    def action_show_keys(self) -> None:
        """Every key of the screen (`?`): the list is made of the bindings active on it now."""
        from tui.workbench.panes.key_list import KeyList

        if isinstance(self.screen, KeyList):
            return
        self.push_screen(KeyList(keys.workload_rows(self.workload_names),
                                 keys.action_rows(self, self.screen.active_bindings)))

    def action_show_help_panel(self) -> None:
        # the palette's "Keys" entry: Textual's panel narrows the screen beside it; the list of keys does not
        self.action_show_keys()

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from keys.system_commands(self)


def build_app(runs_dir: str | os.PathLike[str] | None = None, *, telemetry_source: TelemetrySource | None = None,
              start_sampler: bool = True, clock: Callable[[], float] | None = None,
              runner_factory: RunnerFactory | None = None, **options: Any) -> Workbench:
    """The workbench, for the CLI and the tests alike.

    ``telemetry_source``: a `tui.workbench.sampler.TelemetrySource` (default: the real 1 Hz sampler). With
    ``start_sampler=False`` nothing samples and tests show fakes with ``app.post_sample``.
    ``runner_factory(name, args, sink)`` returns a `Runner` (tests start small scripts).
    """
    return Workbench(runs_dir, telemetry_source=telemetry_source, start_sampler=start_sampler, clock=clock,
                     runner_factory=runner_factory, **options)


def main(runs_dir: str | os.PathLike[str] | None = None) -> int:
    app = build_app(runs_dir)
    app.run()
    return app.return_code or 0
