"""What 80x24 shows (issue 15 item 7): whole card names before bars, and a plot that has data."""

from __future__ import annotations

import dataclasses

from rich.console import Console

from app_fakes import fake_sample, frozen_clock
from tui.workbench.app import Workbench, build_app
from tui.workbench.panes.device import device_table, host_line


def text_of(renderable, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_narrow_device_pane_drops_the_bars_before_the_card_names():
    sample = fake_sample(10, devices=2)
    wide = text_of(device_table(sample, 116), 116)
    assert "████" in wide and "NVIDIA H100 80GB HBM3" in wide and "MHz" in wide
    narrow = text_of(device_table(sample, 76), 76)   # the pane's inside at 80 columns
    assert narrow.count("NVIDIA H100 80GB HBM3") == 2 and "…" not in narrow
    assert "█" not in narrow and "30.0/80.0 GiB" in narrow and "no throttle" in narrow
    long_name = dataclasses.replace(sample, devices=tuple(
        dataclasses.replace(d, name="Lobster LX-9000 Accelerator 96GB") for d in sample.devices))
    narrow = text_of(device_table(long_name, 76), 76)
    assert narrow.count("Lobster LX-9000 Accelerator 96GB") == 2   # the clock gave way too
    assert narrow.count("70%") == 2 and "°C" in narrow
    assert "\n" not in text_of(host_line(sample, narrow=True), 76).strip()   # the host on one row


async def test_80x24_shows_a_plot_that_has_data(tmp_path):
    app = build_app(tmp_path, start_sampler=False, clock=frozen_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        plots = app.plots.plots
        assert [p.display for p in plots] == [True, False, False, False]   # nothing yet: the first
        for i in range(3):
            app.post_sample(fake_sample(i))
        await pilot.pause(0.7)   # a plot refresh tick
        assert [p.display for p in plots] == [False, False, True, False]  # only telemetry: utilisation
        await pilot.press("p")
        await pilot.pause()
        assert [p.display for p in plots] == [False, False, False, True]  # p goes on from what is shown
        text = app.export_screenshot().replace("&#160;", " ")
        assert "NVIDIA H100 80GB HBM3" in text and "NVID…" not in text


async def test_the_first_frame_at_80x24_is_already_the_small_layout(tmp_path):
    """The screen's breakpoint classes are set before its first styling (`Workbench._preset_breakpoints`): the
    first frame is laid out for 80x24 (narrow launcher, short log), not for a wide screen redrawn a frame later."""
    seen = {}

    class Timed(Workbench):
        def on_ready(self):   # runs before the workbench's own on_ready: this is the first frame
            seen["classes"] = set(self.screen.classes)
            seen["launcher"] = self.launcher.region.width
            seen["log"] = self.log_pane.region.height

    app = Timed(tmp_path, start_sampler=False, clock=frozen_clock)
    async with app.run_test(size=(80, 24)):
        await app.panes_built.wait()
    assert {"-narrow", "-short"} <= seen["classes"]
    assert (seen["launcher"], seen["log"]) == (34, 6)
