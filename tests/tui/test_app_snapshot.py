"""Deterministic snapshots of the main screen (fake runs and telemetry, frozen clock) at 120x36 and 80x24.

The SVG from `export_screenshot` is compared, after normalising, with a file
under tests/snapshots/. To accept a deliberate change of the screen:

    CARDBENCH_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/tui/test_app_snapshot.py

and look at the new SVG (or its PNG) before committing it.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest

from app_fakes import FROZEN_T, fake_sample, frozen_clock
from tui.workbench.app import build_app
from tui.workbench.screenshot import render_screenshot_svg
from tui.store import RunRecord
from tui.telemetry.sample import Sample
from workloads import protocol
from paths import SNAPSHOTS

UPDATE = os.environ.get("CARDBENCH_UPDATE_SNAPSHOTS") == "1"


def fake_record(workload: str, steps: int, unit: str, with_loss: bool, t0: float) -> RunRecord:
    events: list[protocol.Event] = [
        protocol.Start(t=t0, workload=workload, config={"steps": steps}, device="cuda:0",
                       versions={"torch": "2.14.1"})]
    for i in range(1, steps + 1):
        events.append(protocol.Step(t=t0 + i, step=i, epoch=(i - 1) // 50,
                                    loss=(6.9 / (1 + i / 20) if with_loss else None),
                                    throughput=900.0 + 40 * (i % 7) + min(i, 30) * 10, unit=unit, step_s=0.1))
    if with_loss:
        events.append(protocol.Fallback(t=t0 + steps, error="CUDA error: device kernel image is invalid",
                                        action="fp32 for BatchNorm2d", layer="bn1", op="BatchNorm2d"))
    events.append(protocol.Result(t=t0 + steps + 1, metrics={"per_s": 1200.0, "final": 0.25}))
    events.append(protocol.End(t=t0 + steps + 2, status="ok", exit_code=0))
    telemetry = [fake_sample(i, t0=t0).to_dict() for i in range(0, steps, 2)]
    return RunRecord(path=Path(f"snap-runs/20260101-000000-{workload}-0001"), config={"workload": workload},
                     events=events, telemetry=telemetry)


def records() -> list[RunRecord]:
    return [fake_record("resnet50", 120, "images/s", True, FROZEN_T),
            fake_record("generate", 64, "tokens/s", False, FROZEN_T + 200)]


def normalise(svg: str) -> str:
    """Rich names its CSS classes after a hash of the content; the hash is not what we compare."""
    svg = re.sub(r"terminal-\d+", "terminal", svg)
    return svg


def check(name: str, svg: str) -> None:
    path = SNAPSHOTS / name
    got = normalise(svg)
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"no snapshot {path}; run with CARDBENCH_UPDATE_SNAPSHOTS=1 to write it")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    want = path.read_text(encoding="utf-8")
    if got != want:
        lines = difflib.unified_diff(want.splitlines(), got.splitlines(), "snapshot", "now", lineterm="")
        diff = "\n".join(line[:160] for line in list(lines)[:40])
        pytest.fail(f"{name} differs from the snapshot (CARDBENCH_UPDATE_SNAPSHOTS=1 to accept):\n{diff}")


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_main_screen_snapshot(size, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    svg = await render_screenshot_svg(records(), fake_sample(40, t0=FROZEN_T), size=size, clock=frozen_clock)
    check(f"main_{size[0]}x{size[1]}.svg", svg)


async def test_idle_screen_without_colour_snapshot(monkeypatch):
    """NO_COLOR: the screen still says everything (alarms carry a '!'); the one plot shown is the one with data."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = build_app("snap-runs", start_sampler=False, clock=frozen_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        hot = fake_sample(45, temperature_c=90.0)  # past the alarm threshold
        app.post_sample(hot)
        await pilot.pause()
        svg = app.export_screenshot()
    text = svg.replace("&#160;", " ")
    # 80 columns: the card's whole name, its memory as figures (the bar gave way), the alarm's '!'
    assert "90 °C!" in text and "NVIDIA H100 80GB HBM3" in text and "65.0/80.0 GiB" in text
    check("idle_80x24_no_color.svg", svg)


async def test_render_screenshot_svg_is_deterministic():
    first = await render_screenshot_svg(records(), fake_sample(3, t0=FROZEN_T), size=(100, 30), clock=frozen_clock)
    second = await render_screenshot_svg(records(), fake_sample(3, t0=FROZEN_T), size=(100, 30),
                                         clock=frozen_clock)
    assert normalise(first) == normalise(second)
    text = first.replace("&#160;", " ")
    for expected in ("resnet50 loss", "FALLBACK", "RESULT", "GPU0", "GPT-2 token generation"):
        assert expected in text


def idle_cards(i: int):
    """Two listed cards that nothing uses: idle, cool, at their floor power."""
    sample = fake_sample(i, t0=FROZEN_T, devices=2)
    devices = tuple(d.replace(util_gpu_pct=0.0, mem_used_bytes=2**20, temperature_c=31.0, power_w=70.0,
                              sm_clock_mhz=345.0) for d in sample.devices)
    return Sample(t=sample.t, devices=devices, host=sample.host.__class__(**{**sample.host.__dict__,
                                                                             "cpu_pct": 99.0}), sources=("fake",))


def cpu_record() -> RunRecord:
    """ResNet-50 that landed on the CPU while nvidia-smi listed two cards: the session recorded the warning."""
    from tui.cpu_trap import CpuTrap

    trap = CpuTrap()
    trap.see_sample(idle_cards(0))
    trap.start_run("resnet50", ["--batch-size", "8"])
    start = protocol.Start(t=FROZEN_T, workload="resnet50", config={"steps": 30}, device="cpu (x86_64, 16 threads)",
                           versions={"torch": "2.14.1+cpu"})
    warning = trap.see_event(start)
    warning.t = FROZEN_T
    events: list[protocol.Event] = [start, warning]
    for i in range(1, 31):
        events.append(protocol.Step(t=FROZEN_T + 5 * i, step=i, epoch=0, loss=6.9 / (1 + i / 20), throughput=9.0 + i % 3,
                                    unit="images/s", step_s=0.9))
    events.append(protocol.End(t=FROZEN_T + 160, status="ok", exit_code=0))
    return RunRecord(path=Path("snap-runs/20260101-000000-resnet50-0002"), config={"workload": "resnet50",
                     "args": ["--batch-size", "8"]}, events=events,
                     telemetry=[idle_cards(i).to_dict() for i in range(0, 150, 5)])


async def test_cpu_run_beside_listed_cards_snapshot(monkeypatch):
    """The trial's worst case, without colour: the banner says it in words, the cards are marked and not plotted."""
    monkeypatch.setenv("NO_COLOR", "1")
    svg = await render_screenshot_svg([cpu_record()], idle_cards(150), size=(80, 24),
                                      clock=frozen_clock)
    text = svg.replace("&#160;", " ")
    assert "!! CPU ONLY: resnet50 runs on the CPU; the 2 listed cards are NOT used" in text
    assert "NOT USED by this run" in text
    check("cpu_run_80x24_no_color.svg", svg)
