"""Pilot tests of the workbench: keys, start/stop, plots, crashes, quitting, export, doctor.

Workloads are small torch-free scripts from tests/children/ started through the
real runner; telemetry is a fake source the test ticks by hand.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import types
from dataclasses import dataclass

import pytest

from app_fakes import FakeTelemetry, child_factory, fake_sample, frozen_clock
from paths import TESTS
from tui.workbench.app import build_app
from tui.store import load_run

SIZE = (120, 36)


async def wait_for(pilot, condition, timeout: float = 15.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0): read its state
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def shown(app) -> str:
    """The screen's text, from its SVG screenshot."""
    return app.export_screenshot().replace("&#160;", " ")


def make_app(runs_dir, factory=None, **kwargs):
    return build_app(runs_dir, start_sampler=False, clock=frozen_clock, runner_factory=factory,
                     stop_grace_s=2.0, **kwargs)


async def test_number_keys_switch_the_workload(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        # nothing holds the focus, so the keys reach the bindings and the launcher shows its top
        assert app.focused is None and app.launcher.scroll_y == 0
        assert app.selected_workload == "resnet50"
        await pilot.press("2")
        assert app.selected_workload == "generate"
        assert app.launcher.values()["tokens"] == "256"
        await pilot.press("1")
        assert app.selected_workload == "resnet50"
        assert app.launcher.values()["batch_size"] == "64"


async def test_start_then_stop_with_s(runs_dir):
    factory = child_factory("steady.py", "100000", "0.05")
    app = make_app(runs_dir, factory)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("s")
        await wait_for(pilot, lambda: (app.state.step or 0) >= 2, what="steps")
        assert app.state.status == "running"
        runner = factory.made[0]
        pid = runner.pid
        assert alive(pid)
        await pilot.press("s")
        await wait_for(pilot, lambda: app.runner is None, what="the stop")
        assert app.state.status == "stopped"
        assert not alive(pid)
    record = load_run(app.session_runs[0])
    assert record.status == "stopped"
    assert record.config["args"][:2] == ["--batch-size", "64"]
    assert len(record.steps) >= 2


def telemetry_lines(run_dir) -> int:
    path = run_dir / "telemetry.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


async def test_plots_receive_steps_and_telemetry(runs_dir):
    factory = child_factory("steady.py", "6", "0.2")
    app = make_app(runs_dir, factory, telemetry_source=FakeTelemetry)
    app.start_sampler = True
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        source = app.sampler
        assert isinstance(source, FakeTelemetry) and source.started
        loss_plot = app.plots.plots[0]
        before = loss_plot.renders
        await pilot.press("s")
        await wait_for(pilot, lambda: (app.state.step or 0) >= 1, what="the first step")
        source.tick()  # while the run is active: recorded
        await wait_for(pilot, lambda: app.state.status == "ok" and app.runner is None, what="the run's end")
        run_dir = app.session_runs[0]
        assert telemetry_lines(run_dir) == 1
        for _ in range(3):
            source.tick()
        await wait_for(pilot, lambda: len(app.history.telemetry.get("util:0", ())) == 4, what="samples")
        series = next(iter(app.history.runs.values()))
        assert list(series.loss.xs) == [1, 2, 3, 4, 5, 6]
        assert series.loss.ys[-1] == pytest.approx(0.5)
        assert series.throughput.last == (6.0, 106.0)
        await pilot.pause(0.7)  # a plot refresh tick
        assert loss_plot.renders > before
        assert loss_plot._drawn_versions == loss_plot.data_version()
        assert "NVIDIA H100" in shown(app)
        assert app.state.result["images_per_s"] == 106.0
        # samples after the run's end are shown, not recorded: its telemetry.jsonl does not grow
        assert telemetry_lines(run_dir) == 1
        assert load_run(run_dir).status == "ok"
    assert source.stopped


async def test_telemetry_goes_to_the_active_run(runs_dir):
    factory = child_factory("steady.py", "100000", "0.05")
    app = make_app(runs_dir, factory, telemetry_source=FakeTelemetry)
    app.start_sampler = True
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        source = app.sampler
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.status == "running", what="the start")
        source.tick()
        source.tick()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.runner is None, what="the stop")
        source.tick()  # no run active: shown, not recorded
        await pilot.pause()
    record = load_run(app.session_runs[0])
    assert [s["t"] for s in record.telemetry] == [fake_sample(0).t, fake_sample(1).t]


class TwoIdleCards(FakeTelemetry):
    """nvidia-smi lists two cards, and the torch probe has answered: this PyTorch sees none of them."""

    def __init__(self, callback):
        super().__init__(callback)
        from workloads.probe_report import ProbeReport

        self.torch_probe = types.SimpleNamespace(done=True, result=ProbeReport(torch="2.5.1", cuda="12.4"))

    def tick(self):
        sample = fake_sample(self.i, devices=2)
        if self.sink is not None:
            self.sink(sample.to_dict())
        self.callback(sample)
        self.i += 1


async def test_work_on_the_cpu_beside_listed_cards_is_the_loudest_thing_on_the_screen(runs_dir):
    from tui.workbench.plot_lines import thermal_lines, util_lines

    factory = child_factory("steady.py", "100000", "0.05")  # starts on "cpu", like resnet50 when torch sees no card
    app = make_app(runs_dir, factory, telemetry_source=TwoIdleCards)
    app.start_sampler = True
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        source = app.sampler
        source.tick()
        await pilot.pause()
        # before the run: the launcher's device is auto, torch sees none of the two listed cards
        assert app.cpu_banner.display
        text = shown(app)
        assert "!! torch sees NONE of the 2 listed cards: resnet50 would run on the CPU" in text
        assert "hint: this PyTorch does not match the driver" in text
        device = app.launcher.query_one("#param-resnet50-device")
        device.value = "cpu"  # the user means it: no warning
        await pilot.pause()
        assert not app.cpu_banner.display
        device.value = ""
        await pilot.pause()
        assert app.cpu_banner.display
        await pilot.press("s")
        assert any("WARNING: torch sees none of the 2 accelerators" in line for line in app.log_pane.lines_text)
        await wait_for(pilot, lambda: app.state.cpu_alarm is not None, what="the CPU warning")
        for _ in range(3):
            source.tick()
        await wait_for(pilot, lambda: (app.state.step or 0) >= 2, what="steps")
        await pilot.pause(0.7)  # a plot refresh tick
        # during the run: the state's warnings, the banner, the log, the device pane and the plots
        assert len(app.state.warnings) == 1 and "resnet50 runs on the CPU" in app.state.warnings[0]
        text = shown(app)
        assert "!! CPU ONLY: resnet50 runs on the CPU; the 2 listed cards are NOT used" in text
        assert "torch sees none of them. hint: this PyTorch does not match the driver" in text
        assert "warnings 1" in text and "NOT USED by this run" in text
        assert any("WARNING: resnet50 runs on the CPU" in line for line in app.log_pane.lines_text)
        assert [line.label for line in util_lines(app.history)] == ["host cpu % (the run)"]
        assert thermal_lines(app.history) == []
        assert "temp/power: cards unused (CPU run)" in text and "host cpu %, cards unused (CPU run)" in text
        await pilot.press("s")
        await wait_for(pilot, lambda: app.runner is None, what="the stop")
        assert app.cpu_banner.display  # it stays after the run
    record = load_run(app.session_runs[0])
    assert [e.code for e in record.events if e.kind == "warning"] == ["cpu_while_accelerators_listed"]


async def test_a_crash_shows_error_and_hint_and_the_app_stays_up(runs_dir):
    factory = child_factory("crash.py")
    app = make_app(runs_dir, factory)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.status == "failed", what="the crash")
        text = "\n".join(app.log_pane.lines_text)
        assert "ERROR: workload exited with code 3" in text
        assert "kernel image is invalid" in text
        assert "hint:" in text
        assert app.runner is None and app.is_running
        # the next run starts fine
        await pilot.press("s")
        await wait_for(pilot, lambda: len(app.session_runs) == 2 and app.runner is None, what="second run")
    assert (app.session_runs[0] / "run.log").read_text().count("kernel image is invalid") >= 1


async def test_quit_asks_while_running_and_stops_the_child(runs_dir):
    factory = child_factory("steady.py", "100000", "0.05")
    app = make_app(runs_dir, factory)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.status == "running", what="the start")
        pid = factory.made[0].pid
        await pilot.press("q")
        await pilot.pause()
        assert type(app.screen).__name__ == "Confirm"
        await pilot.press("n")  # stay
        await pilot.pause()
        assert app.is_running and alive(pid)
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, what="the exit")
    assert not alive(pid)
    assert load_run(app.session_runs[0]).status == "stopped"


async def test_quit_when_idle_does_not_ask(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, what="the exit")


async def test_a_bad_field_value_is_one_log_line_and_no_run(runs_dir):
    factory = child_factory("steady.py")
    app = make_app(runs_dir, factory)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.launcher.query_one("#param-resnet50-batch_size").value = "0"
        await pilot.press("s")
        await pilot.pause()
        assert "batch size: must be positive, not 0" in app.log_pane.lines_text[-1]
        assert app.runner is None and not factory.made
        assert not runs_dir.exists() or not any(runs_dir.iterdir())


async def test_typing_in_a_field_does_not_trigger_keys(runs_dir):
    factory = child_factory("steady.py")
    app = make_app(runs_dir, factory)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        field = app.launcher.query_one("#param-resnet50-data")
        field.focus()
        field.value = ""
        await pilot.press("s", "2", "q")
        assert field.value == "s2q"
        assert app.is_running and app.runner is None and app.selected_workload == "resnet50"
        await pilot.press("escape", "2")
        assert app.selected_workload == "generate"


async def choose_the_checked_runs(app, pilot) -> None:
    """e offers the runs first (`ExportChoice`, the finished ones checked): Enter takes them."""
    from tui.workbench.panes.export_choice import ExportChoice

    await wait_for(pilot, lambda: isinstance(app.screen, ExportChoice), what="the choice of runs")
    await pilot.press("enter")


async def test_export_calls_the_report_bundle_with_the_screen_and_runs(runs_dir, tmp_path, monkeypatch):
    calls = []

    def export_bundle(inputs):
        inputs.progress("writing")
        calls.append((list(inputs.run_dirs), inputs.output_dir, inputs.screenshot_svg))
        return inputs.output_dir / "cardbench-report.zip"

    import tui.report.export  # the real package (the screenshot's redaction is in it), only its bundle writer faked

    monkeypatch.setattr(tui.report.export, "export_bundle", export_bundle)
    factory = child_factory("steady.py", "3", "0.01")
    app = make_app(runs_dir, factory, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.status == "ok", what="the run")
        await pilot.press("e")
        await choose_the_checked_runs(app, pilot)
        await wait_for(pilot, lambda: bool(calls) and "report bundle written" in app.log_pane.lines_text[-1],
                       what="the export")
    run_dirs, output_dir, svg = calls[0]
    assert run_dirs == app.session_runs and output_dir == tmp_path / "out"
    assert svg.startswith("<svg") and "launcher" in svg
    assert any("export: writing" in line for line in app.log_pane.lines_text)


async def test_the_e_key_s_bundle_uses_the_trial_s_kept_price(runs_dir, tmp_path, monkeypatch):
    """`cardbench trial --price-per-hour` priced the headless export but not the workbench's: now both, credited to
    the trial (issue 22.9)."""
    from tui.trial import config as trial_config

    monkeypatch.setenv(trial_config.ENV_VAR, str(tmp_path / "config.json"))   # this test's own config
    trial_config.save(trial_config.TrialConfig(ends=4e9, started=3.9e9, price_per_hour=6.5, currency="CNY"))
    calls = []
    import tui.report.export

    monkeypatch.setattr(tui.report.export, "export_bundle", lambda inputs: calls.append(inputs) or tmp_path / "x.zip")
    app = make_app(runs_dir, child_factory("steady.py", "2", "0.01"), export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.status == "ok", what="the run")
        await pilot.press("e")
        await choose_the_checked_runs(app, pilot)
        await wait_for(pilot, lambda: bool(calls), what="the export")
    assert (calls[0].price_per_hour, calls[0].currency, calls[0].price_from) == (6.5, "CNY", "trial")


async def test_export_waits_for_the_active_run(runs_dir, tmp_path, monkeypatch):
    calls = []
    import tui.report.export

    monkeypatch.setattr(tui.report.export, "export_bundle", lambda inputs: calls.append(inputs) or tmp_path / "x.zip")
    factory = child_factory("steady.py", "100000", "0.05")
    app = make_app(runs_dir, factory, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("s")
        await wait_for(pilot, lambda: (app.state.step or 0) >= 1, what="steps")
        await pilot.press("e")
        await pilot.pause()
        assert calls == []  # the doctor's probe and collect_env would share the device with the run
        assert "a run is active" in app.log_pane.lines_text[-1]
        await pilot.press("s")
        await wait_for(pilot, lambda: app.runner is None, what="the stop")


@dataclass
class _Check:
    name: str
    status: str
    evidence: str
    hint: str = ""


async def test_doctor_runs_off_the_ui_thread_and_lists_checks(runs_dir):
    import threading

    release = threading.Event()
    threads = []

    def run_checks():
        threads.append(threading.current_thread())
        release.wait(5)
        return [_Check("driver", "PASS", "550.54.15"), _Check("torch sees the GPU", "FAIL", "0 devices",
                                                               "set CUDA_VISIBLE_DEVICES")]

    app = make_app(runs_dir, run_checks=run_checks)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("d")
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "DoctorScreen"
        assert "running the checks" in str(screen.query_one("#doctor-result").render())
        release.set()
        await wait_for(pilot, lambda: screen.checks is not None, what="the checks")
        await pilot.pause()
        text = shown(app)
        assert "torch sees the GPU" in text and "CUDA_VISIBLE_DEVICES" in text
        assert threads[0] is not threading.main_thread()
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ != "DoctorScreen"


async def test_command_palette_lists_the_actions(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE):
        await app.panes_built.wait()
        titles = [c.title for c in app.get_system_commands(app.screen)]
    for title in ("Start or stop the workload", "Export the report bundle", "Doctor", "Cycle the plots",
                  "Select ResNet-50 training", "Select GPT-2 token generation", "Quit"):
        assert title in titles


async def test_small_terminal_shows_one_plot_and_does_not_draw_the_hidden_ones(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        plots = app.plots.plots
        assert [p.display for p in plots] == [True, False, False, False]
        before = [p.renders for p in plots]
        for i in range(5):
            app.post_sample(fake_sample(i))
        await pilot.pause(0.7)  # a plot refresh tick
        # only telemetry so far: the pane shows the first plot with data, utilisation, and draws only it
        assert [p.display for p in plots] == [False, False, True, False]
        drawn = [p.renders - b for p, b in zip(plots, before)]
        assert drawn[2] > 0 and drawn[1] == drawn[3] == 0
        await pilot.press("p")
        await pilot.pause()
        assert [p.display for p in plots] == [False, False, False, True]
        assert plots[3].renders > before[3] and plots[1].renders == before[1]
        await pilot.press("p")
        await pilot.pause()
        assert [p.display for p in plots] == [True, False, False, False]
        assert plots[2]._drawn_versions == plots[2].data_version()
        # every pane keeps a non-empty place on the screen
        for widget in (app.devices, app.launcher, app.plots, app.log_pane):
            assert widget.region.width > 10 and widget.region.height >= 3


async def test_tiny_terminal_does_not_crash(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=(40, 12)) as pilot:
        await app.panes_built.wait()
        app.post_sample(fake_sample(0))
        await pilot.pause()
        plots = app.plots.plots
        assert [p.display for p in plots] == [False, False, True, False]  # no room for the grid: the one with data
        await pilot.press("2", "p")
        assert app.selected_workload == "generate"
        assert [p.display for p in plots] == [False, False, False, True]  # `p` showed the next one
        await pilot.press("p", "p", "p")
        assert [p.display for p in plots] == [False, False, True, False]  # and round again


async def test_a_telemetry_source_that_fails_leaves_the_app_up(runs_dir):
    def broken(callback):
        raise OSError("no /proc here")

    app = make_app(runs_dir, telemetry_source=broken)
    app.start_sampler = True
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        assert app.sampler is None
        assert "telemetry could not start (OSError: no /proc here)" in "\n".join(app.log_pane.lines_text)
        await pilot.press("2")
        assert app.selected_workload == "generate"


HANGUP_CHILD = """
import sys
sys.path.insert(0, {tests!r})
from app_fakes import child_factory
from tui.workbench.app import build_app

app = build_app({runs!r}, start_sampler=False, runner_factory=child_factory("hang.py", {pids!r}), stop_grace_s=0.5)


async def go(pilot):
    await app.panes_built.wait()
    app.start_workload("resnet50")

app.run(headless=True, auto_pilot=go)
sys.exit(app.return_code)
"""


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_hangup_or_kill_stops_the_workload_child(tmp_path, sig):
    """A closed SSH session: the workbench stops its child (here one that ignores SIGTERM) and exits."""
    pids = tmp_path / "pids"
    code = HANGUP_CHILD.format(tests=str(TESTS), runs=str(tmp_path / "runs"), pids=str(pids))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    children: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while not (pids.exists() and pids.read_text().strip()):
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the workload child never started"
            time.sleep(0.05)
        children = [int(p) for p in pids.read_text().split()]
        time.sleep(0.3)  # the child is past writing its pids: it is running
        proc.send_signal(sig)
        assert proc.wait(timeout=15) == 128 + sig
        assert not any(alive(pid) for pid in children)
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
