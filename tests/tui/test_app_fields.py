"""The launcher's fields as a user meets them: an empty field shows what runs; a stray value is asked about."""

from __future__ import annotations

from test_app import SIZE, make_app
from tui.workbench.launch import build_args


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def _batch_field(app, pilot):
    """ResNet-50's batch-size field, focused, once the fields are built."""
    await app.panes_built.wait()
    field = app.launcher.query_one("#param-resnet50-batch_size")
    field.focus()
    await pilot.pause()
    return field


async def test_an_emptied_batch_field_shows_and_runs_its_default(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        field = await _batch_field(app, pilot)
        field.action_end()
        await pilot.press("backspace", "backspace")
        await pilot.pause()
        assert field.value == ""
        assert "64 (default)" in screen_text(app)
        args = build_args("resnet50", app.launcher.values())
        assert args[args.index("--batch-size") + 1] == "64"


async def _ask(app, pilot, answer: str) -> list[str]:
    started: list[str] = []
    app.launcher.start_when_sure(lambda: started.append("started"))
    await pilot.pause()
    assert type(app.screen).__name__ == "Confirm"
    text = screen_text(app)
    assert "epochs: 13064, above the usual 100" in text and "--batch-size 6" in text
    await pilot.press(answer)
    await pilot.pause()
    return started


async def test_a_stray_epoch_count_asks_before_the_run_starts(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.screen.set_focus(None)
        app.launcher.query_one("#param-resnet50-batch_size").value = "6"
        app.launcher.query_one("#param-resnet50-epochs").value = "13064"
        assert await _ask(app, pilot, "n") == []             # "Edit the fields": nothing starts
        assert await _ask(app, pilot, "y") == ["started"]    # "Start anyway"
        app.launcher.query_one("#param-resnet50-epochs").value = "2"
        started: list[str] = []
        app.launcher.start_when_sure(lambda: started.append("started"))
        await pilot.pause()
        assert started == ["started"] and type(app.screen).__name__ != "Confirm"  # usual values: no question


def _burst(app, keys: str) -> None:
    """Keys as a paste or a laggy SSH link delivers them: all queued before the first is handled."""
    from textual import events

    names = {"\t": ("tab", None), "<": ("backspace", None), ">": ("end", None)}
    for char in keys:
        key, character = names.get(char, (char, char))
        app.post_message(events.Key(key, character))


async def test_keys_typed_in_one_burst_land_in_the_fields_they_were_typed_for(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        (await _batch_field(app, pilot)).value = ""
        await pilot.pause()
        _burst(app, "128\t><3\t><<<50")
        await pilot.pause(0.3)
        values = app.launcher.values()
        assert (values["batch_size"], values["epochs"], values["steps"]) == ("128", "3", "50")


async def test_s_with_a_stray_epoch_count_asks_before_anything_starts(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.launcher.query_one("#param-resnet50-epochs").value = "13064"
        await pilot.press("s")
        await pilot.pause()
        assert type(app.screen).__name__ == "Confirm"
        await pilot.press("n")
        await pilot.pause()
        assert not app.session.running and not app.session.runs


async def test_a_number_typed_into_a_prefilled_field_replaces_its_value(runs_dir):
    # issue 22.12: Tab then 3 into '30' gave '303', 15 into '600' gave '60015'
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        app.screen.set_focus(None)
        await pilot.press("tab", "tab")   # batch size, then epochs: focused by the key, as a user does
        await pilot.pause()
        assert app.focused.id == "param-resnet50-epochs"
        await pilot.press("3")
        await pilot.press("tab", "2", "0")
        await pilot.pause()
        values = app.launcher.values()
        assert values["epochs"] == "3" and values["steps"] == "20"
        await pilot.press("shift+tab", "end", "0")   # End keeps the value for editing
        await pilot.pause()
        assert app.launcher.values()["epochs"] == "30"


def test_no_label_runs_into_its_value():
    # issue 22.12: 'per-op timeout60': the label column was 14 cells whatever the labels
    from tui.workbench.launch import params_for
    from tui.workbench.panes.launcher import label_width
    from workloads import registry

    for name in registry.names():
        params = params_for(name)
        if params:
            assert label_width(params) > max(len(p.label) for p in params), name


async def test_labels_stand_apart_from_their_values_on_screen(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("4")   # microbench: 'largest GEMM side' is longer than the old 14 cells
        await pilot.pause()
        text = screen_text(app)
        assert "largest GEMM side 16384" in text and "largest GEMM si16384" not in text


async def test_a_placeholder_wider_than_its_field_ends_in_an_ellipsis_and_shows_whole_on_focus(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        await pilot.press("4")
        await pilot.pause()
        field = app.launcher.query_one("#param-microbench-dtypes")
        whole = "fp32,tf32,fp16,bf16,int8,fp8"
        assert field.placeholder.endswith("…") and whole.startswith(field.placeholder[:-1])
        assert len(field.placeholder) <= field.content_region.width
        assert whole not in screen_text(app)
        field.focus()
        for _ in range(20):   # the hint is scrolled into view once it is laid out (the bar's last line, readiness)
            await pilot.pause(0.05)
            if whole in screen_text(app):
                break
        assert whole in screen_text(app)       # the hint line under the fields
        app.screen.set_focus(None)
        await pilot.pause()
        assert whole not in screen_text(app)


async def test_after_a_long_run_state_the_workload_choice_stays_on_screen(runs_dir):
    # issue 22.12: after a run the launcher scrolled the workload bar off an 80x24 screen
    from tui.workbench.view.run_state import RunState

    app = make_app(runs_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        app.launcher.state = RunState(workload="resnet50", status="ok", step=5, total_steps=5, throughput=60.0,
                                      rate_span="last step", unit="images/s", loss=4.08,
                                      warnings=[f"warning {i}" for i in range(6)],
                                      result={"throughput": 60.59, "unit": "images/s", "final_loss": 4.08})
        await pilot.pause()
        app.launcher.scroll_end(animate=False)
        await pilot.pause()
        assert app.launcher.max_scroll_y > 0          # the state does not fit: the launcher scrolled
        assert "1 ResNet-50" in screen_text(app)
