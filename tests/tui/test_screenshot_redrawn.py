"""The headless screenshot says what it is (issue 15 item 7): a re-drawing from the runs on disk, at their times.

`cardbench export --run` after a dropped session drew the screen an hour after the run, and its log
lines and devices carried the time (and readings) of the export as if it were the workbench then.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections import defaultdict
from pathlib import Path

from app_fakes import FROZEN_T, fake_sample
from tui.store import RunRecord
from tui.report.run_times import run_span, runs_title
from tui.workbench.screenshot import render_screenshot_svg
from workloads import protocol

AN_HOUR_LATER = FROZEN_T + 3600   # 01:00:00 UTC: when the export runs


def record(ended: bool = True, telemetry: bool = True) -> RunRecord:
    events: list[protocol.Event] = [protocol.Start(t=FROZEN_T, workload="resnet50", config={"steps": 12},
                                                   device="cuda:0", versions={})]
    events += [protocol.Step(t=FROZEN_T + 10 * i, step=i, epoch=0, loss=2.0 / i, throughput=900.0 + i,
                             unit="images/s", step_s=0.1) for i in range(1, 13)]
    if ended:
        events.append(protocol.End(t=FROZEN_T + 125, status="ok", exit_code=0))   # 00:02:05
    samples = [fake_sample(i, t0=FROZEN_T).to_dict() for i in range(0, 121, 10)] if telemetry else []
    return RunRecord(path=Path("runs/20260101-000000-resnet50-0001"), config={"workload": "resnet50"},
                     events=events, telemetry=samples)


def text(svg: str) -> str:
    """The screen's rows as text (a row is split into one SVG text element per style), and the window title."""
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for m in re.finditer(r'<text class="[\w-]*r\d+" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        rows[float(m.group(2))].append((float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " ")))
    lines = []
    for y in sorted(rows):
        line = ""
        for x, piece in sorted(rows[y]):
            line = line.ljust(round(x / 12.2)) + piece
        lines.append(line)
    title = re.search(r'-title"[^>]*>([^<]*)<', svg)
    return "\n".join([html.unescape(title.group(1)).replace("\xa0", " ") if title else "", *lines])


async def test_a_re_drawing_says_so_and_shows_the_runs_own_times():
    at_export = dataclasses.replace(fake_sample(0, t0=AN_HOUR_LATER), t=AN_HOUR_LATER)
    svg = text(await render_screenshot_svg([record()], at_export, clock=lambda: AN_HOUR_LATER))
    assert "cardbench: re-drawn from the run on disk, 2026-01-01 00:00:00 to 00:02:05 UTC" in svg
    assert "00:02:05 end: ok" in svg and "00:00:00 20260101-000000-resnet50-0001 from disk" in svg
    assert "01:00:00" not in svg                            # nothing carries the export's time
    assert "devices: run's last sample 00:02:00 UTC" in svg


async def test_without_telemetry_the_devices_say_they_were_read_at_export():
    at_export = dataclasses.replace(fake_sample(0, t0=AN_HOUR_LATER), t=AN_HOUR_LATER)
    svg = text(await render_screenshot_svg([record(telemetry=False)], at_export, clock=lambda: AN_HOUR_LATER))
    assert "devices: read at export 01:00:00 UTC" in svg
    assert "re-drawn from the run on disk, 2026-01-01 00:00:00 to 00:02:05 UTC" in svg


def test_a_run_cut_short_is_timed_by_its_last_event():
    cut = record(ended=False)
    assert run_span(cut) == "00:00:00 to 00:02:00 UTC (its last event: no end event)"
    assert runs_title([cut, record()]).endswith("re-drawn from 2 runs on disk, 2026-01-01 00:00:00 to 00:02:05 UTC")


def test_a_run_over_midnight_gives_its_end_date():
    day = record()
    day.events[-1] = protocol.End(t=FROZEN_T + 86_400, status="ok", exit_code=0)   # a day later, same clock time
    assert run_span(day) == "00:00:00 to 2026-01-02 00:00:00 UTC, ok"
    assert runs_title([day]).endswith("re-drawn from the run on disk, 2026-01-01 00:00:00 to 2026-01-02 00:00:00 UTC")


def test_the_text_screen_says_when_the_runs_ran_and_keeps_a_long_card_name_whole():
    from tui.report.screen import text_screen

    sample = fake_sample(0, devices=2)
    sample = dataclasses.replace(sample, devices=tuple(dataclasses.replace(d, name="Lobster LX-9000 Accelerator 96GB")
                                                       for d in sample.devices))
    screen = text_screen([record()], sample)
    assert screen.splitlines()[1] == "re-drawn from the run on disk, 2026-01-01 00:00:00 to 00:02:05 UTC"
    assert screen.count("GPU0 Lobster LX-9000 Accelerator 96GB util") == 1
    assert screen.count("GPU1 Lobster LX-9000 Accelerator 96GB util") == 1


async def test_the_re_drawing_builds_only_the_series_its_plot_shows(monkeypatch):
    """A day of 8 cards is 34 series; the screenshot's one plot (utilisation) reads 17: the others never take the
    run's points (`tui.workbench.history`: a series is built when first read; a day's costs ~40 ms)."""
    import tui.workbench.history as history_module

    built: list[str] = []
    read = history_module._SeriesByName.__getitem__

    def spy(self, name):
        if name in self.pending:
            built.append(name)
        return read(self, name)

    monkeypatch.setattr(history_module._SeriesByName, "__getitem__", spy)
    eight = dataclasses.replace(record(), events=record().events[:1],   # no steps: the utilisation plot is shown
                                telemetry=[fake_sample(i, t0=FROZEN_T, devices=8).to_dict() for i in range(0, 121, 10)])
    svg = text(await render_screenshot_svg([eight], clock=lambda: AN_HOUR_LATER))
    assert "utilisation %" in svg and "GPU7 util" in svg
    assert sorted(built) == sorted([*(f"util:{i}" for i in range(8)), *(f"mem:{i}" for i in range(8)), "cpu"])
