"""The workbench's start (issue 23 item 5): the garbage collector is held from run() until the first frame is out and
runs again after it; the session and the store are made just after the first frame, not before it."""

from __future__ import annotations

import gc

from test_app import SIZE, make_app
from textual.app import App


def test_run_holds_the_collector_and_lets_it_go_when_the_app_ends(runs_dir, monkeypatch):
    seen: list[bool] = []

    def textual_run(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return "ended"

    monkeypatch.setattr(App, "run", textual_run)
    assert gc.isenabled()
    app = make_app(runs_dir)
    assert app.run(headless=True) == "ended"
    assert seen == [False]           # Textual ran with the collector held
    assert gc.isenabled()            # an app that ends before its first frame gives it back


async def test_the_first_frame_lets_the_collector_run_again_and_makes_the_session(runs_dir):
    app = make_app(runs_dir)
    assert "session" not in vars(app) and "store" not in vars(app)   # made at their first use
    gc.disable()
    app.startup._gc_held = True   # as run() leaves it (run_test does not go through run())
    try:
        async with app.run_test(size=SIZE):
            await app.panes_built.wait()
            assert gc.isenabled()
            assert "session" in vars(app) and app.session.store is app.store
            assert any(f"runs are kept in {app.store.root}" in line for line in app.log_pane.lines_text)
    finally:
        gc.enable()
