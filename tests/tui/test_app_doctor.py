"""The workbench's doctor view (`d`): totals above the table, the outcome sent to the log, its own footer."""

from __future__ import annotations

from test_app import SIZE, make_app, wait_for
from tui.doctor import FAIL, PASS, SKIP, WARN, DoctorCheck
from tui.workbench.panes import keys
from tui.workbench.panes.doctor import log_lines
from tui.workbench.panes.messages import DoctorFinished

CHECKS = [
    DoctorCheck("management CLI answers", PASS, "nvidia-smi lists 2 GPU(s)"),
    DoctorCheck("NVML library loads", WARN, "not loaded (NVMLError_LibraryNotFound)", "install the library"),
    DoctorCheck("torch sees the accelerator", FAIL, "torch sees none", "use the image's PyTorch"),
    DoctorCheck("TensorFlow sees the device", SKIP, "TensorFlow is not installed (optional)"),
]


def bottom_row(screen) -> str:
    return screen._compositor.render_strips()[-1].text


async def test_the_doctor_shows_its_totals_and_posts_them_for_the_log(runs_dir):
    posted = []
    app = make_app(runs_dir, run_checks=lambda: list(CHECKS))
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await app.panes_built.wait()
        await pilot.press("d")
        screen = app.screen
        await wait_for(pilot, lambda: screen.checks is not None, what="the checks")
        await pilot.pause()
        shown = "\n".join(strip.text for strip in screen._compositor.render_strips())
        assert "doctor: 1 PASS, 1 WARN, 1 FAIL, 1 SKIP" in shown
        finished = [m for m in posted if isinstance(m, DoctorFinished)]
        assert len(finished) == 1 and finished[0].checks == CHECKS


def test_the_log_gets_the_totals_and_each_fail_and_warn():
    lines = [text for text, _style in log_lines(CHECKS)]
    assert lines == [
        "doctor: 1 PASS, 1 WARN, 1 FAIL, 1 SKIP",
        "  WARN NVML library loads: not loaded (NVMLError_LibraryNotFound) (hint: install the library)",
        "  FAIL torch sees the accelerator: torch sees none (hint: use the image's PyTorch)",
    ]
    assert [style for _text, style in log_lines(CHECKS)][1:] == ["yellow", "red"]


async def test_the_doctor_footer_offers_esc_and_none_of_the_workbench_keys(runs_dir):
    app = make_app(runs_dir, run_checks=lambda: list(CHECKS))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        await pilot.press("d")
        await pilot.pause()
        footer = bottom_row(app.screen)
        assert "esc" in footer.lower() and "close" in footer
        for binding in keys.BINDINGS:
            if binding.show:
                assert binding.description not in footer, footer
        assert "ResNet-50" not in footer
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ != "DoctorScreen"


async def test_the_main_footer_keeps_every_label_at_80_columns(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        footer = bottom_row(app.screen)
    for binding in keys.BINDINGS:
        if binding.show:
            assert f" {binding.key_display or binding.key} {binding.description}" in f" {footer} ", footer
    # issue 22.12: b and D had no room at 80 columns and ? was in no footer
    for entry in ("s run", "D detach", "b backup", "? keys", "q quit"):
        assert entry in footer, footer
    count = len(app.workload_names)   # the workloads and readiness: past the tenth, no key
    assert footer.lstrip().startswith(f"{'0-9' if count >= 10 else f'1-{count}'} select")  # 0: the tenth's key


async def test_the_log_gets_the_doctors_totals_and_each_fail_and_warn(runs_dir):
    app = make_app(runs_dir, run_checks=lambda: list(CHECKS))
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.press("d")
        screen = app.screen
        await wait_for(pilot, lambda: screen.checks is not None, what="the checks")
        await pilot.press("escape")
        await pilot.pause()
        text = "\n".join(s.text for s in app.screen._compositor.render_strips())
        assert "doctor: 1 PASS, 1 WARN, 1 FAIL, 1 SKIP" in text
        assert "WARN NVML library loads" in text and "FAIL torch sees the accelerator" in text
