"""A new workload is a folder and one registry line: a dummy one, registered here, reaches every consumer.

The dummy is a real workload package written to a temporary directory (`python -m
polish` through the harness, like resnet50 and generate), so the launcher starts it
with the real runner, the headless suite plans and runs it, and the report labels
its figures, all from its spec alone: nothing under tui/ knows its name.
"""

from __future__ import annotations

import argparse
import json
import textwrap
import time
import zipfile

import pytest

from recorded_env import recorded_doctor_and_env, text_screen  # noqa: F401 - fixtures
from tui import headless
from tui.workbench.app import build_app
from tui.cli import build_parser
from tui.store import load_run
from workloads import registry
from workloads.spec import Param, SuiteArgs, Text, WorkloadSpec, option, positive

# its typed result (workloads.result_record): each figure with its label and unit, which every printer reads
RECORD = textwrap.dedent('''
    from dataclasses import dataclass
    from typing import ClassVar

    from workloads.result_record import FRACTION, TEXT, Record, figure
    from workloads.spec import Text


    @dataclass
    class PolishResult(Record):
        HEADLINE: ClassVar[str] = "widgets_per_s"
        TABLE: ClassVar[tuple[str, ...]] = ("widgets_per_s", "shine")
        LINE: ClassVar[tuple[str, ...]] = ("shine",)
        widgets_per_s: float | None = figure(Text("widgets/s polished", "每秒抛光部件"), "widgets/s")
        shine: float | None = figure(Text("shine achieved", "光泽度"), FRACTION)
        precision: str | None = figure(Text("precision", "精度"), TEXT)
''')
MAIN = textwrap.dedent('''
    """A workload no cardbench module names: counts widgets polished per second."""
    import sys

    from polish.result_record import PolishResult
    from workloads.child.harness import ArgumentParser, run_main, positive_int


    def main(emitter, argv):
        parser = ArgumentParser(prog="polish")
        parser.add_argument("--count", type=positive_int, default=5)
        parser.add_argument("--device", default="cpu")
        args = parser.parse_args(argv)
        emitter.start("polish", {"count": args.count}, "cpu", {"python": sys.version.split()[0]})
        for step in range(1, args.count + 1):
            emitter.step(step, throughput=40.0 + step, unit="widgets/s", loss=1.0 / step)
        emitter.result(PolishResult(widgets_per_s=40.0 + args.count, shine=0.875, precision="fp32"))
        return 0


    sys.exit(run_main(main))
''')

_RECORD: dict = {}
exec(RECORD, _RECORD)   # the class the child imports from its folder, here for the spec the registry holds

SPEC = WorkloadSpec(
    name="polish",
    title=Text("Widget polishing", "部件抛光"),
    result=_RECORD["PolishResult"],
    params=(Param("count", "count", "--count", "4", "int"),),
    suite=SuiteArgs(quick=("--count", "6"), standard=("--count", "9"), cpu_quick=("--count", "3"),
                    cpu_standard=("--count", "3"), cpu_quick_note="no accelerator: three widgets only"),
    planned_steps=lambda args, config: positive(config.get("count")) or positive(option(args, "--count", 5)),
    module="polish",
)


@pytest.fixture
def polish(tmp_path, monkeypatch):
    package = tmp_path / "plugins" / "polish"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(MAIN)
    (package / "result_record.py").write_text(RECORD)
    monkeypatch.setenv("PYTHONPATH", f"{package.parent}:{__import__('os').environ['PYTHONPATH']}")
    with registry.registered(SPEC):
        yield SPEC


async def test_the_launcher_offers_and_runs_a_registered_workload(polish, runs_dir):
    app = build_app(runs_dir, start_sampler=False, stop_grace_s=2.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        # after the registered workloads, before readiness (a command the launcher offers: tui/workbench/entries.py)
        assert app.workload_names[-2:] == ["polish", "ready"]
        # the eleventh workload has no number key (1-9 and 0 are taken): chosen as the palette's entry does
        app.action_select_workload(app.workload_names.index("polish"))
        await pilot.pause()
        assert app.selected_workload == "polish"
        assert app.launcher.values() == {"count": "4"}
        await pilot.press("s")
        deadline = time.monotonic() + 60
        while app.state.status not in ("ok", "failed") and time.monotonic() < deadline:
            await pilot.pause(0.1)
        assert app.state.status == "ok", app.state
        assert app.state.total_steps == 4 and app.state.unit == "widgets/s"
        assert app.state.result["widgets_per_s"] == 44.0
        footer = app.export_screenshot().replace("&#160;", " ")
        assert "Widget" in footer  # the footer's key label is the title's first word
    record = load_run(app.session_runs[-1])
    assert record.workload == "polish" and record.status == "ok" and len(record.steps) == 4
    assert record.config["args"] == ["--count", "4"]


def test_the_headless_suite_plans_it_from_its_spec(polish):
    jobs, notes = headless.suite_jobs("quick", None, accelerator=False, device="cpu")
    job = next(j for j in jobs if j.workload == "polish")
    assert job.args == ["--count", "3", "--device", "cpu"] and job.total == 3
    assert "polish: no accelerator: three widgets only" in [str(n) for n in notes]
    jobs, _ = headless.suite_jobs("standard", ["polish"], accelerator=True, device=None)
    assert [(j.workload, j.args) for j in jobs] == [("polish", ["--count", "9"])]
    # `--workloads` accepts it, because the parser's choices come from the registry
    assert build_parser().parse_args(["--export-report", "--workloads", "polish"]).workloads == ["polish"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_headless_export_runs_it_and_the_report_labels_it(polish, tmp_path, monkeypatch, lang,
                                                              recorded_doctor_and_env, text_screen):
    # the doctor, collect_env and the re-drawn screen have their own tests: recorded ones here (tests/recorded_env.py)
    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))
    out = tmp_path / "out"
    args = argparse.Namespace(output=str(out), runs_dir=str(tmp_path / "runs"), suite="quick",
                              workloads=["polish"], device="cpu", price_per_hour=None, currency="USD", lang=lang)
    assert headless.export_report(args) == 0
    bundle = next(out.glob("cardbench-report-*.zip"))
    with zipfile.ZipFile(bundle) as zf:
        names = zf.namelist()
        report = zf.read(next(n for n in names if n.endswith("report.md"))).decode()
        summary = json.loads(zf.read(next(n for n in names if n.endswith("metrics/summary.json"))))
    run = summary["runs"][0]
    assert run["workload"] == "polish" and run["headline"] == 43.0 and run["throughput"]["unit"] == "widgets/s"
    title, label, shine, ok = (("Widget polishing", "widgets/s polished", "shine achieved", "ok") if lang == "en" else
                               ("部件抛光", "每秒抛光部件", "光泽度", "成功"))
    assert f"| {title} | {ok} | 43 widgets/s |" in report
    assert f"| {label} | 43 |" in report and f"| {shine} | 87.5 % |" in report
