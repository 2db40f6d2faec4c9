"""Each stage of the export pipeline (tui/report/export/) alone: what it reads from the inputs and the stages
before it, and what it puts in the bundle. The whole export is tested in test_report.py and its neighbours."""

import json
from pathlib import Path

import pytest

from app_fakes import fake_sample
from report_runs import generate_run, resnet_run
from tui.report import png
from tui.report.bundle import Bundle, BundleError
from tui.report.export import ExportInputs, environment, export_bundle
from tui.report.export.document import Gathered, write_document
from tui.report.export.logs import write_logs
from tui.report.export.metrics import write_metrics
from tui.report.export.reading import Devices, detect_devices, read_runs
from tui.report.export.redaction import redact
from tui.report.export.rendering import ManagementCli, render_charts, render_management_cli, render_screen
from tui.redact import Redactor
from tui.store import RunStore
from workloads import protocol

SECRET = "hf_stagesSECRETstagesSECRET0123"


def _runs(tmp_path: Path) -> list[Path]:
    store = RunStore(tmp_path / "runs")
    return [resnet_run(store), generate_run(store)]


def _secret_run(tmp_path: Path) -> Path:
    run = RunStore(tmp_path / "runs").create("resnet50", ["--steps", "2"])
    run.append(protocol.Start(t=1.0, workload="resnet50", device="cpu", config={"batch_size": 4}))
    run.log(f"logged in with {SECRET}", t=1.5)
    run.append(protocol.End(t=2.0, status="ok", exit_code=0))
    run.close()
    return run.path


def _text(bundle: Bundle, name: str) -> str:
    return bundle.files[name].decode("utf-8")


def test_inputs_are_one_frozen_record_whose_progress_display_cannot_cost_the_report(tmp_path):
    said = []
    inputs = ExportInputs([str(tmp_path / "a")], str(tmp_path / "out"), notes=["n"], progress=said.append)
    assert inputs.run_dirs == (tmp_path / "a",) and inputs.output_dir == tmp_path / "out" and inputs.notes == ("n",)
    with pytest.raises(AttributeError):
        inputs.lang = "zh"  # frozen: no stage changes what the caller asked for
    inputs.say("charts")
    broken = ExportInputs([], tmp_path, progress=lambda message: 1 / 0)
    broken.say("charts")  # a raising display is ignored
    assert said == ["charts"]


def test_reading_reads_every_run_and_refuses_a_directory_that_is_not_one(tmp_path):
    runs = _runs(tmp_path)
    assert [r.workload for r in read_runs(runs)] == ["resnet50", "generate"]
    with pytest.raises(BundleError):
        read_runs([*runs, tmp_path])


def test_reading_keeps_the_callers_devices_and_says_why_detection_failed(monkeypatch):
    sample = fake_sample(0)
    assert detect_devices(sample) == Devices(sample)
    from tui.report.export import reading

    monkeypatch.setattr(reading.telemetry, "collect_once", lambda: 1 / 0)
    failed = detect_devices(None)
    assert failed.sample is None and failed.note == "device detection failed: ZeroDivisionError: division by zero"
    assert len(failed.notes) == 1 and "ZeroDivisionError" in str(failed.notes[0])


def test_redaction_learns_the_secrets_of_the_environment_and_hides_them_in_the_copies_drawn(tmp_path):
    records = read_runs([_secret_run(tmp_path)])
    redacted = redact(records, {"HF_TOKEN": SECRET})
    assert SECRET in records[0].log_text                      # the run on disk is read as it is
    assert SECRET not in redacted.shown[0].log_text and "[redacted]" in redacted.shown[0].log_text
    assert SECRET not in redacted.redactor.text(f"token {SECRET}")


def test_rendering_puts_the_text_screen_in_for_a_screen_that_cannot_be_drawn(tmp_path):
    records = read_runs(_runs(tmp_path))
    bundle = Bundle(Redactor({}))

    def broken(records, sample):
        raise RuntimeError("no display")

    screen = render_screen(ExportInputs([], tmp_path, screenshot=broken), records, None, bundle.redactor, bundle)
    assert screen.caption == "screenshot_redrawn"
    assert "RuntimeError: no display" in str(screen.note) and screen.png_error is None
    assert "rendering" in _text(bundle, "screenshot.svg") and bundle.files["screenshot.png"][:4] == b"\x89PNG"
    given = render_screen(ExportInputs([], tmp_path, screenshot_svg="<svg>live</svg>", screenshot_note="kept"),
                          records, None, bundle.redactor, Bundle(Redactor({})))
    assert (given.caption, given.note) == ("screenshot_of", "kept")


def test_rendering_draws_each_runs_charts_and_the_management_cli(tmp_path):
    records = read_runs(_runs(tmp_path))
    bundle = Bundle(Redactor({}))
    charts = render_charts(records, bundle)
    assert set(charts.files) == {r.id for r in records} and charts.notes == ()
    for title, name in charts.files[records[0].id]:
        assert title and name.startswith(f"charts/{records[0].id}") and name in bundle.files
    cli = render_management_cli(fake_sample(0), bundle.redactor, bundle)
    assert isinstance(cli, ManagementCli) and cli.output.text in _text(bundle, "nvidia-smi.txt")
    assert "nvidia-smi.png" in bundle.files or cli.png_error


def test_metrics_write_the_summary_with_its_cost_and_the_csvs(tmp_path):
    records = read_runs(_runs(tmp_path))
    bundle = Bundle(Redactor({}))
    figures = write_metrics(ExportInputs([], tmp_path, price_per_hour=3.6, currency="EUR"), records, 1e9, "box",
                            bundle)
    assert [s.workload for s in figures.summaries] == ["resnet50", "generate"]
    written = json.loads(_text(bundle, "metrics/summary.json"))
    assert (written["host"], written["generated"], written["cost"]["currency"]) == ("box", 1e9, "EUR")
    assert set(written["cost"]["runs"]) == {r.id for r in records}
    assert _text(bundle, "metrics/steps.csv").count("\n") > 10
    assert "metrics/telemetry.csv" in bundle.names()
    free = write_metrics(ExportInputs([], tmp_path), records, 1e9, "box", Bundle(Redactor({})))
    assert free.summaries and written["runs"][0]["run_id"] == records[0].id


def test_logs_copy_each_runs_files_redacted_without_its_recorded_secrets(tmp_path):
    records = read_runs([_secret_run(tmp_path)])
    redacted = redact(records, {"HF_TOKEN": SECRET})
    bundle = Bundle(redacted.redactor)
    write_logs(records, redacted.shown, bundle)
    folder = f"logs/{records[0].id}"
    assert {f"{folder}/run.log", f"{folder}/events.jsonl", f"{folder}/config.json"} <= set(bundle.names())
    assert "[redacted]" in _text(bundle, f"{folder}/run.log") and SECRET not in _text(bundle, f"{folder}/run.log")
    assert json.loads(_text(bundle, f"{folder}/config.json"))["workload"] == "resnet50"
    assert all(json.loads(line) for line in _text(bundle, f"{folder}/events.jsonl").splitlines())


def test_environment_waits_for_the_doctor_and_says_when_it_failed(tmp_path, monkeypatch):
    from tui import doctor

    monkeypatch.setattr(doctor, "run_checks", lambda: 1 / 0)
    said = []
    inputs = ExportInputs([], tmp_path, progress=said.append)
    background = environment.collect_env_first(inputs)
    assert background.collect is None    # no doctor's checks given: collect_env waits for the doctor
    background = environment.doctor_then_collect_env(inputs, background)
    bundle = Bundle(Redactor({}))
    env = environment.write_environment(inputs, background, bundle.redactor, Devices(None, "no devices"), bundle)
    assert "ZeroDivisionError" in str(env.doctor_note) and env.doctor == []
    assert json.loads(_text(bundle, "env.json"))["device_detection_note"] == "no devices"
    assert "env.txt" in bundle.files
    assert said[0].startswith("running the doctor, then collect_env")


def test_the_document_lists_the_bundles_files_and_states_the_notes_in_order(tmp_path):
    records = read_runs(_runs(tmp_path))
    inputs = ExportInputs([], tmp_path, doctor_checks=[])
    bundle = Bundle(Redactor({}))
    cli = render_management_cli(None, bundle.redactor, bundle)
    screen = render_screen(ExportInputs([], tmp_path, screenshot_svg=png.terminal_svg("x", "x")), records, None,
                           bundle.redactor, bundle)
    charts = render_charts(records, bundle)
    figures = write_metrics(inputs, records, 1e9, "box", bundle)
    env = environment.write_environment(inputs, environment.collect_env_first(inputs), bundle.redactor,
                                        Devices(None), bundle)
    gathered = Gathered(1e9, "box", cli, screen, charts, figures, env, ["first note", "second note"])
    write_document(inputs, gathered, bundle)
    md = _text(bundle, "report.md")
    assert md.index("first note") < md.index("second note")
    assert "SHA256SUMS" in md and "metrics/steps.csv" in md and "report.html" in md
    assert "<html" in _text(bundle, "report.html") and "box" in _text(bundle, "report.html")


def test_the_pipeline_runs_its_stages_in_order_into_one_zip(tmp_path):
    said = []
    path = export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", doctor_checks=[], sample=fake_sample(0),
                                      screenshot_svg=png.terminal_svg("x", "x"), progress=said.append))
    assert path.parent == tmp_path / "out" and path.suffix == ".zip"
    stages = ["reading the runs", "device detection", "management CLI output", "screenshot", "charts",
              "metrics and logs", "writing the report", "writing the zip"]
    assert [s for s in said if s in stages] == stages
