"""`?` lists every key of the screen, the workload keys included, and gives the screen back as it was (issue 36.8:
it opened a search palette, whose "Keys" panel left out `1 ResNet-50`, did not close with Escape and narrowed the
log beside it)."""

from __future__ import annotations

import pytest

from test_app import SIZE, make_app
from tui.workbench.panes.key_list import KeyList
from workloads import registry


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_question_mark_lists_every_key_of_the_screen(runs_dir, size):
    app = make_app(runs_dir)
    async with app.run_test(size=size) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        main = app.screen
        keys = {app.get_key_display(active.binding) for active in main.active_bindings.values()}
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeyList)
        text = screen_text(app)
        # every workload by its number key and the launcher's name for it, as the bar shows them
        for key, name in zip("1234567890", app.workload_names):
            assert f"{key} {registry.spec_for(name).short_title}" in text
        listed = {key for keys_shown, _words in app.screen.actions for key in keys_shown.split(" ")}
        listed |= {key for key, _name in app.screen.workloads}
        assert keys - {"0-9"} <= listed, f"keys the screen has and the list leaves out: {keys - listed}"
        for words in ("start or stop the workload", "this list of keys", "back up runs", "quit"):
            assert words in text
        assert "Escape or ? closes this list" in text


@pytest.mark.parametrize("close", ["escape", "question_mark"])
async def test_escape_or_question_mark_closes_it_and_the_screen_is_as_it_was(runs_dir, close):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        log, launcher = app.log_pane.region, app.launcher.region
        before = screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeyList)
        # nothing under it is laid out again: the log keeps its width (the key panel took its right side)
        assert (app.log_pane.region, app.launcher.region) == (log, launcher)
        await pilot.press("s")   # the workbench's keys wait while the list is up: nothing starts
        await pilot.press(close)
        await pilot.pause()
        assert not isinstance(app.screen, KeyList)
        assert screen_text(app) == before and not app.state.active


async def test_the_palette_s_keys_entry_opens_the_same_list(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        keys = [c for c in app.get_system_commands(app.screen) if c.title == "Keys"]
        assert len(keys) == 1
        keys[0].callback()
        await pilot.pause()
        assert isinstance(app.screen, KeyList)
        keys[0].callback()   # a second call while it is up opens no second list
        await pilot.pause()
        assert len(app.screen_stack) == 2
