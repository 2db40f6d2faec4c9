"""A background task that fails is said on the log (issue 23.3: seven workers ran with exit_on_error=False and no
handler), and a failed workload consumer ends the run's 'running' state."""

from __future__ import annotations

from test_app import SIZE, make_app

from tui.run_state import RunState


async def test_a_failed_worker_is_said_and_a_failed_consumer_ends_running(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.state = RunState(workload="resnet50", run_id="r1", status="running")

        def broken() -> None:
            raise OSError(5, "Input/output error")

        app.run_worker(broken, thread=True, group="workload", description="workload events", exit_on_error=False)
        for _ in range(50):
            await pilot.pause(0.05)
            if app.state.status == "failed":
                break
        assert app.state.status == "failed"
        assert any("workload events failed: OSError: [Errno 5] Input/output error" in line
                   for line in app.log_pane.lines_text)
        assert "FAILED" in app.launcher.query_one("#run-state").render().plain
        assert app.is_running   # the workbench stays up
