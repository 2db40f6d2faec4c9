"""A recorded doctor and collect_env for tests that check a report's words, not the doctor or collect_env.

The real ones each run torch in a child: seconds a call on a loaded 2-core machine, paid by every export that
does not pass its own. The doctor's tests (tests/tui/doctor), the export-cost tests (tests/tui/report/
test_export_costs.py) and the headless end-to-end run (tests/tui/headless) keep running the real ones.
"""

from __future__ import annotations

import json

import pytest

from paths import FIXTURES

# `cardbench doctor --json` on the 2-core CPU machine these tests run on (no accelerator, torch 2.14.1)
DOCTOR_JSON = FIXTURES / "report" / "doctor-cpu-no-accelerator.json"
# `python -m torch.utils.collect_env` on 8x RTX A5000 (tests/fixtures/report/SOURCES.md)
COLLECT_ENV_TXT = FIXTURES / "report" / "nvidia-8x-rtx-a5000-torch1.11-cu115.txt"


def recorded_checks() -> list:
    from tui.doctor.check import DoctorCheck

    return [DoctorCheck.from_dict(check) for check in json.loads(DOCTOR_JSON.read_text(encoding="utf-8"))]


@pytest.fixture
def recorded_doctor_and_env(monkeypatch):
    """The doctor an export runs and the collect_env it gathers answer from the recordings, at once."""
    import tui.doctor
    from tui.report import envinfo

    text = COLLECT_ENV_TXT.read_text(encoding="utf-8")
    monkeypatch.setattr(tui.doctor, "run_checks", lambda *a, **kw: recorded_checks())
    monkeypatch.setattr(envinfo, "run_collect_env",
                        lambda **kw: envinfo.CollectEnv(text, envinfo.parse_collect_env(text), 0.1))


@pytest.fixture
def text_screen(monkeypatch):
    """`cardbench export` with a plain screen in place of the workbench re-drawn off-screen (a Textual app run:
    seconds on a loaded machine), for tests of what the export does with its runs, not of the screen. The screen
    itself is tested in tests/tui/test_screenshot_redrawn.py and tests/tui/test_app_snapshot.py."""
    import tui.workbench.screenshot
    from tui.report import png

    monkeypatch.setattr(tui.workbench.screenshot, "app_screenshot",
                        lambda records, sample=None, timeout=60.0: (png.terminal_svg("cardbench", "cardbench"), None))
