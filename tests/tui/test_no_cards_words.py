"""On a machine that lists no card, nothing says "the listed cards were not used" (issue 22.8).

The CPU was all there was: the screen, the plots and the report's chart say the run was on the CPU, and say a card
went unused only where one is listed.
"""
from __future__ import annotations

from pathlib import Path

from app_fakes import FROZEN_T, fake_sample, frozen_clock
from tui.workbench.history import History
from tui.report.charts import _utilisation_chart
from tui.store import RunRecord
from tui.workbench.screenshot import render_screenshot_svg
from workloads import protocol


def cpu_record(devices: int) -> RunRecord:
    events: list[protocol.Event] = [protocol.Start(t=FROZEN_T, workload="resnet50", config={"steps": 5},
                                                   device="cpu (x86_64, 2 threads)", versions={"torch": "2.14.1"})]
    for i in range(1, 6):
        events.append(protocol.Step(t=FROZEN_T + i, step=i, epoch=0, loss=6.9 - i / 10, throughput=9.0,
                                    unit="images/s", step_s=0.9))
    events.append(protocol.End(t=FROZEN_T + 6, status="ok", exit_code=0))
    return RunRecord(path=Path("runs/20260101-000000-resnet50-0001"), config={"workload": "resnet50"}, events=events,
                     telemetry=[fake_sample(i, devices=devices).to_dict() for i in range(6)])


def test_history_calls_cards_unused_only_where_cards_are_listed():
    for devices, unused in ((0, False), (2, True)):
        h = History()
        h.add_record(cpu_record(devices))
        assert h.cards_unused is unused, devices


def test_report_chart_says_no_card_listed():
    alone = _utilisation_chart(cpu_record(0), "resnet50")
    assert "no card listed" in alone and "not used" not in alone
    beside = _utilisation_chart(cpu_record(2), "resnet50")
    assert "the listed cards were not used" in beside


async def test_screen_without_cards_says_nothing_went_unused(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    svg = await render_screenshot_svg([cpu_record(0)], fake_sample(6, devices=0), size=(120, 36), clock=frozen_clock)
    text = svg.replace("&#160;", " ")
    assert "NOT USED" not in text and "cards unused" not in text and "not used" not in text
    svg = await render_screenshot_svg([cpu_record(2)], fake_sample(6, devices=2), size=(120, 36), clock=frozen_clock)
    assert "NOT USED by this run" in svg.replace("&#160;", " ")
