"""The launcher's fields as a user meets them: an empty field shows what runs; a stray value is asked about."""

from __future__ import annotations

from test_app import SIZE, make_app
from tui.launch import build_args


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
