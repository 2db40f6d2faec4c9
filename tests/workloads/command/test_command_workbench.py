"""The workbench runs a user's command from its launcher field and shows its loss and throughput live."""

from __future__ import annotations

import sys
import time

import pytest

from app_fakes import choose_workload
from tui.workbench.app import build_app

# tqdm-style redraws on stderr, the Trainer's loss dicts on stdout
JOB = ("import sys,time\n"
       "for i in range(1,7):\n"
       "    sys.stderr.write(f'\\\\rTraining: {i*16}%|# | {i}/6 [00:0{i}<00:01, {30+i}.00it/s]'); sys.stderr.flush()\n"
       "    print({'loss': 1.0/i, 'learning_rate': 5e-05, 'epoch': i/6}); time.sleep(0.05)\n")


async def finished(app, pilot, timeout: float = 60.0) -> str:
    """The run's status once it has ended (or what it is when ``timeout`` runs out)."""
    deadline = time.monotonic() + timeout
    while app.state.active and time.monotonic() < deadline:
        await pilot.pause(0.1)
    return app.state.status


async def test_the_launchers_command_runs_and_its_loss_and_rate_reach_the_state_and_plots(command_workload, runs_dir):
    app = build_app(runs_dir, start_sampler=False, stop_grace_s=2.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        await choose_workload(app, pilot, "command")
        app.launcher.show_args("command", ["--command", f"{sys.executable} -c \"{JOB}\""])
        await pilot.press("s")
        assert await finished(app, pilot) == "ok", app.state
        assert app.state.unit == "it/s" and app.state.throughput == 36.0 and app.state.loss == pytest.approx(1 / 6)
        assert app.state.step == 6 and app.state.total_steps == 6
        assert app.state.result["throughput"] == 34.0  # the median of 32..36 it/s, the first rate left out
        run = next(iter(app.history.runs.values()))
        assert run.unit == "it/s" and len(run.loss) == 6
        assert len(run.throughput) == 5 and len(run.warmup) == 1   # the plot greys the rate the median left out
        app.plots.refresh_plots()  # the plots redraw on a timer: draw now rather than race it
        await pilot.pause()
        screen = app.export_screenshot().replace("&#160;", " ")
        assert "command it/s" in screen and "command loss" in screen  # the plots' titles
