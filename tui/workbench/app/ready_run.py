"""The launcher's readiness entry: `cardbench ready` started from its fields as a child of the workbench
(`tui.workbench.ready_child`), its steps, table, verdicts and bundle path in the log as it says them, its phase on the
launcher's run state; s stops it the way Ctrl+C does, so what was measured is still judged and bundled.

`ReadyRun` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only through `ReadyRunHost`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from tui.workbench.ready_child import ReadyChild, phase_of
from tui.workbench.ready_entry import NAME, EntryError, arguments
from tui.workbench.view.run_state import RunState
from workloads import exit_codes
from workloads.catalogue import say

if TYPE_CHECKING:
    from tui.store import RunStore
    from tui.workbench.panes.launcher import LauncherPane

POLL_S = 0.5   # how often the child's log is read for what it said
# a verdict line's style in the log, by its first word (tui/ready/table.py's verdict_lines)
_VERDICT_STYLE = {"PASS": "green", "WARN": "bold yellow", "FAIL": "bold red"}
_STATUS = {exit_codes.OK: "ok", exit_codes.INTERRUPTED: "stopped"}   # any other exit: failed (or a FAIL verdict)


class ReadyRunHost(Protocol):
    """What `ReadyRun` needs of the app."""

    store: RunStore
    state: RunState
    launcher: LauncherPane
    export_dir: Path | None

    def say(self, line: str, style: str = "") -> None: ...
    def show_state(self) -> None: ...
    def notify(self, message: str, **options: Any) -> None: ...
    def set_interval(self, interval: float, callback: Callable[[], Any]) -> Any: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...
    def run_worker(self, work: Callable[[], Any], **options: Any) -> Any: ...


class ReadyRun:
    """Start, follow and stop the workbench's `cardbench ready`."""

    def __init__(self, host: ReadyRunHost) -> None:
        self.host = host
        self.child: ReadyChild | None = None
        self._timer: Any = None
        self._reading = False      # a read of the log is in flight: the next tick waits for it
        self._ends_at = 0.0        # the budget's end (monotonic): the state's ETA is at most this
        self.bundle: Path | None = None
        # what the command says on stdout (the table, the verdict lines), said once it ends: the last thing in the
        # log, where the bundle's own progress lines would have scrolled it out of a small pane
        self._table: list[str] = []

    @property
    def running(self) -> bool:
        """A readiness run of this workbench has not ended (or its last lines are not read yet)."""
        return self.child is not None

    def start(self) -> bool:
        """Start `cardbench ready` with the entry's fields; False (and said why, in one line) when it cannot."""
        host = self.host
        try:
            args, budget_min = arguments(host.launcher.values(NAME))
        except EntryError as exc:
            self._refused(str(exc))
            return False
        try:
            child = ReadyChild.start(args, runs_dir=host.store.root, output=host.export_dir or Path.cwd())
        except OSError as exc:
            self._refused(exc.strerror or str(exc))
            return False
        self.child, self.bundle, self._table = child, None, []
        self._ends_at = time.monotonic() + budget_min * 60
        host.state = RunState(workload=NAME, status="starting")
        host.show_state()
        host.say(say("ready.run.starting", "en", args=" ".join(args), log=child.log), "bold")
        self._timer = host.set_interval(POLL_S, self._tick)
        return True

    def _refused(self, why: str) -> None:
        line = say("ready.run.cannot_start", "en", why=why)
        self.host.say(line, "bold red")
        self.host.notify(why, title=say("ready.run.notice", "en"), severity="error", markup=False)

    def stop(self) -> None:
        """Ask it to stop (SIGINT): the running step stops, the table and the bundle are still written."""
        if self.child is None or self.child.stop_requested:
            return
        self.host.say(say("ready.run.stopping", "en"), "yellow")
        self.child.stop()

    def leave(self) -> None:
        """The workbench is going: stop it and leave it to write what it measured (detached, it outlives us)."""
        child = self.child
        if child is None:
            return
        if child.returncode is None:
            child.stop()
            self.host.say(say("ready.run.left_running", "en", pid=child.pid, log=child.log), "yellow")
        self._forget()

    def _forget(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.child = None

    # following ------------------------------------------------------------------------------------
    def _tick(self) -> None:
        child = self.child
        if child is None or self._reading:
            return
        self._reading = True
        self.host.run_worker(lambda: self._read(child), thread=True, exit_on_error=False, group="ready",
                             description="reading readiness's output")

    def _read(self, child: ReadyChild) -> None:
        # the exit status first: lines read after it are the last ones
        try:
            code = child.returncode
            lines = child.new_lines()
        finally:
            self.host.call_from_thread(setattr, self, "_reading", False)
        self.host.call_from_thread(self._take, child, lines, code)

    def _take(self, child: ReadyChild, lines: list[str], code: int | None) -> None:
        if child is not self.child:
            return   # left, or another started, while the lines were read
        for line in lines:
            self._line(line)
        if code is not None and not lines:
            self._ended(code)
        elif self.host.state.active:
            self.host.state.eta_s = max(0.0, self._ends_at - time.monotonic())
            self.host.state.eta_of = say("ready.run.eta_of", "en")
            self.host.show_state()

    def _line(self, line: str) -> None:
        """One line of the command's, in the log: a phase on the state too; a verdict in its colour."""
        state = self.host.state
        phase = phase_of(line)
        if phase is not None:
            state.status, state.step, state.total_steps = "running", phase.at, phase.of
            state.doing = phase.name
        if line.endswith(".zip") and Path(line).is_file():
            self.bundle = Path(line)
            self.host.say(say("ready.run.bundle", "en", path=line), "bold")
        elif line.startswith("cardbench:"):
            self.host.say(line, "bold" if phase is not None else "dim")
        else:
            self._table.append(line)

    def _ended(self, code: int) -> None:
        host = self.host
        # exit 1 with a bundle: it ran to its end and a verdict is FAIL (the table above says which)
        status = _STATUS.get(code, "ok" if code == exit_codes.FAILED and self.bundle else "failed")
        host.state.status, host.state.eta_s = status, None
        host.show_state()
        host.say(say("ready.run.ended", "en", status=status, code=code),
                 "bold" if status == "ok" else "yellow" if status == "stopped" else "bold red")
        verdicts = [line.split(" ", 1)[0] for line in self._table if line.split(" ", 1)[0] in (*_VERDICT_STYLE, "N/A")]
        for line in self._table:
            host.say(line, _VERDICT_STYLE.get(line.split(" ", 1)[0], ""))
        # the launcher's state keeps the count of each verdict once the table has scrolled away
        host.state.doing = "  ".join(f"{v} {verdicts.count(v)}" for v in (*_VERDICT_STYLE, "N/A") if v in verdicts)
        where = say("ready.run.bundle", "en", path=self.bundle) if self.bundle else str(self.child.log if self.child
                                                                                        else "")
        host.notify(where, title=say("ready.run.notice_ended", "en", status=status), severity="information" if status == "ok" else "warning",
                    markup=False)
        self._forget()
