"""The report bundle, built from hand-made run directories (no torch, no workload children)."""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from report_runs import BOUND_EXCEEDED, generate_run, ink_fraction, resnet_run
from tui.report import envinfo, png, smi, xid
from tui.report.bundle import BundleError
from tui.report.export import ExportInputs, export_bundle
from tui.report.bundle import Bundle, check_output_dir
from tui.redact import Redactor
from tui.store import RunStore
from paths import FIXTURES as ALL_FIXTURES
from paths import REPO

FIXTURES = ALL_FIXTURES / "report"
REAL_COLLECT_ENV = envinfo.run_collect_env
DOCTOR = [{"name": "torch imports", "status": "PASS", "evidence": "torch 2.14.1", "hint": ""},
          {"name": "CUDA initialisation time", "status": "PASS",
           "evidence": "1.84 s to the first tensor on the device (torch import 2.1 s; bound 20 s)", "hint": ""},
          {"name": "fp16 autocast runs on the device", "status": "FAIL", "evidence": "no kernel image",
           "hint": "run with --amp off"}]
EXPECTED = {"SHA256SUMS", "env.json", "env.txt", "metrics/steps.csv", "metrics/summary.json",
            "metrics/telemetry.csv", "nvidia-smi.png", "nvidia-smi.txt", "report.html", "report.md",
            "screenshot.png", "screenshot.svg"}


@pytest.fixture(autouse=True)
def quick_env(monkeypatch, tmp_path):
    """collect_env from a real capture (no torch import) and a PATH with a fake nvidia-smi printing a real table."""
    text = (FIXTURES / "nvidia-8x-rtx-a5000-torch1.11-cu115.txt").read_text()
    monkeypatch.setattr(envinfo, "run_collect_env",
                        lambda **kw: envinfo.CollectEnv(text, envinfo.parse_collect_env(text), 0.1))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "nvidia-smi"
    tool.write_text(f"#!/bin/sh\ncat '{FIXTURES / 'table-h100-load-processes.txt'}'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    return bin_dir


def _runs(tmp_path, **kw):
    store = RunStore(tmp_path / "runs")
    return [resnet_run(store, **kw), generate_run(store)]


def _screenshot(text="cardbench workbench"):
    return png.terminal_svg(text, "cardbench")


def _unzip(path: Path, into: Path) -> Path:
    with zipfile.ZipFile(path) as zf:
        zf.extractall(into)
    (top,) = list(into.iterdir())
    return top


def _files(top: Path) -> set[str]:
    return {str(p.relative_to(top)) for p in top.rglob("*") if p.is_file()}


def test_bundle_holds_every_file_and_sha256sums_checks(tmp_path):
    runs = _runs(tmp_path)
    path = export_bundle(ExportInputs(runs, tmp_path / "out", screenshot_svg=_screenshot(), doctor_checks=DOCTOR))
    assert path.parent == tmp_path / "out" and path.name.startswith("cardbench-report-") and path.suffix == ".zip"
    top = _unzip(path, tmp_path / "x")
    assert top.name == path.stem
    files = _files(top)
    assert EXPECTED <= files
    for run in runs:
        assert {f"logs/{run.name}/run.log", f"logs/{run.name}/events.jsonl"} <= files
    assert {f"charts/{runs[0].name}-{kind}.png" for kind in ("loss", "throughput", "utilisation")} <= files
    listed = {}
    for line in (top / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ", 1)
        listed[name] = digest
    assert set(listed) == files - {"SHA256SUMS"}
    for name, digest in listed.items():
        assert hashlib.sha256((top / name).read_bytes()).hexdigest() == digest
    if shutil.which("sha256sum"):
        done = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=top, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    assert not [p for p in (tmp_path / "out").iterdir() if p != path], "temporary files left behind"


def test_report_content_and_metrics(tmp_path):
    runs = _runs(tmp_path)
    top = _unzip(export_bundle(ExportInputs(runs, tmp_path / "out", screenshot_svg=_screenshot(), doctor_checks=DOCTOR,
                                            price_per_hour=2.0, currency="EUR")), tmp_path / "x")
    md = (top / "report.md").read_text()
    # the doctor table, both workloads' numbers beside their bounds, the fallback, stability and cost
    assert "| FAIL | fp16 autocast runs on the device | no kernel image | run with --amp off |" in md
    assert "950 images/s" in md and "2,470" in md
    assert "121.5 tokens/s" in md and "13.5 %" in md
    assert "layer layer1.0.bn1, op BatchNorm2d" in md and "autocast off for BatchNorm2d" in md
    assert "sw_power_cap (1)" in md and "84 C" in md
    assert "per million tokens" in md and "EUR" in md
    assert "1.84 s" in md  # CUDA initialisation time from the doctor
    assert "Driver Version: 590.48.01" in (top / "nvidia-smi.txt").read_text()
    assert "NVIDIA RTX A5000" in (top / "env.txt").read_text()
    html = (top / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and '<img src="nvidia-smi.png"' in html
    summary = json.loads((top / "metrics/summary.json").read_text())
    resnet = summary["runs"][0]
    assert resnet["precision"] == "bf16" and resnet["batch_size"] == 32
    assert resnet["first_loss"] == pytest.approx(6.9 * 2.718281828 ** (-1 / 8), rel=1e-3)
    assert resnet["last_loss"] == 1.97 and len(resnet["fallbacks"]) == 1 and len(resnet["warnings"]) == 1
    assert resnet["throughput"]["skipped"] == 1 and resnet["throughput"]["median"] == 960.0
    assert summary["runs"][1]["ttft_s"] == 0.012 and summary["runs"][1]["throughput"]["skipped"] == 0
    cost = summary["cost"]["runs"][summary["runs"][1]["run_id"]]
    assert cost["cost_per_million_tokens"] == pytest.approx(2.0 / 3600 / 121.5 * 1e6)
    steps = (top / "metrics/steps.csv").read_text().splitlines()
    assert steps[0].startswith("run_id,workload,t,step,epoch,loss,throughput") and len(steps) == 1 + 10 + 4
    tele = (top / "metrics/telemetry.csv").read_text().splitlines()
    assert len(tele) == 1 + 10 + 4 and "Fake GPU 80GB" in tele[1]
    # a reading that was never taken is an empty cell, not a zero
    header = tele[0].split(",")
    assert tele[1].split(",")[header.index("util_mem_pct")] == ""


def test_a_share_of_the_bound_above_100_percent_is_shown_as_unreliable_everywhere(tmp_path):
    from tui.headless.suite import result_line
    from tui.workbench.panes.run_view import render_state
    from tui.workbench.view.run_state import RunState
    from workloads import protocol
    from workloads.runner import Outcome

    run = generate_run(RunStore(tmp_path / "runs"), bound_exceeded=True)
    top = _unzip(export_bundle(ExportInputs([run], tmp_path / "out", screenshot_svg=_screenshot(),
                                            doctor_checks=DOCTOR)),
                 tmp_path / "x")
    md = (top / "report.md").read_text()
    assert "135.8 %" not in md and "136 %" not in md
    assert ("bound unreliable: decoding read 20.2 GB/s, more than the 14.9 GB/s measured as the device's read "
            "bandwidth (bound 29.8 tokens/s)") in md  # the summary's "read against" column
    assert "| share of read bandwidth achieved | unreliable: the bound was mis-measured (see the warnings) |" in md
    assert "| tokens/s bound (read bandwidth) | 29.8, unreliable: the bound was mis-measured" in md
    assert "the bound was mis-measured, most likely while the host was busy" in md  # the warning, under problems
    zh = _unzip(export_bundle(ExportInputs([run], tmp_path / "out-zh", screenshot_svg=_screenshot(),
                                           doctor_checks=DOCTOR, lang="zh")), tmp_path / "zh")
    assert "上限不可靠" in (zh / "report.md").read_text() and "135.8 %" not in (zh / "report.md").read_text()

    metrics = {"tokens_per_s": 40.5, "ttft_s": 0.012, **BOUND_EXCEEDED}
    outcome = Outcome()
    outcome.see(protocol.Result(metrics=metrics))
    outcome.see(protocol.End(status="ok", exit_code=0))
    assert result_line("generate", outcome) == ("generate: ok, 40.5 tokens/s per sequence (decode, median after warm-up), "
                                                "time to first token 12 ms, "
                                                "share of read bandwidth achieved unreliable")
    glance = render_state(RunState(workload="generate", status="ok", result=metrics)).plain.splitlines()[-1]
    assert "share of read bandwidth achieved unreliable" in glance and "1.358" not in glance and "%" not in glance


def test_chinese_report(tmp_path):
    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=_screenshot(),
                                            doctor_checks=DOCTOR, lang="zh")), tmp_path / "x")
    md = (top / "report.md").read_text()
    assert md.startswith("# cardbench 测试报告") and "## 环境检查" in md and "## 稳定性" in md
    assert "--price-per-hour" in md  # how to get the cost section
    assert 'lang="zh-CN"' in (top / "report.html").read_text()
    assert "warm-up left out" not in md and "预热未计入" in md


def test_pngs_decode_and_are_not_blank(tmp_path):
    screen = _screenshot("GPU 0  Fake GPU 80GB  util 93%  memory 30.0 GiB / 80.0 GiB\n" * 10)
    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=screen,
                                            doctor_checks=DOCTOR)), tmp_path / "x")
    pngs = sorted(top.rglob("*.png"))
    assert len(pngs) >= 7
    for p in pngs:
        width, height, ink = ink_fraction(p.read_bytes())
        assert width >= 300 and height >= 100, p.name
        assert ink > 0.01, f"{p.name} is blank ({ink:.4f} of its pixels differ from the background)"


def test_no_management_cli_gives_own_table_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=_screenshot(),
                                            doctor_checks=DOCTOR)), tmp_path / "x")
    assert "cardbench devices" in (top / "nvidia-smi.txt").read_text()
    assert "No management CLI answered" in (top / "report.md").read_text()
    assert (top / "nvidia-smi.png").stat().st_size > 1000


def test_management_cli_that_fails_or_hangs_is_reported(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate' >&2\nexit 9\n")
    (bad / "ixsmi").write_text("#!/bin/sh\n/bin/sleep 30\necho late\n")
    for tool in bad.iterdir():
        tool.chmod(0o755)
    old = os.environ["PATH"]
    os.environ["PATH"] = str(bad)
    try:
        out = smi.run_management_cli(timeout=0.5, sample=None)
    finally:
        os.environ["PATH"] = old
    assert out.tool is None and "nvidia-smi exit 9: NVIDIA-SMI has failed" in out.note and "did not answer within" in out.note


def test_missing_font_keeps_the_svg_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDBENCH_FONT", "none")
    png.monospace_font.cache_clear()
    try:
        top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot_svg=_screenshot(),
                                                doctor_checks=DOCTOR)), tmp_path / "x")
    finally:
        png.monospace_font.cache_clear()
    files = _files(top)
    assert "screenshot.svg" in files and "screenshot.png" not in files
    assert "no monospace font" in (top / "report.md").read_text()


def test_screenshot_falls_back_to_a_text_screen(tmp_path):
    def unavailable(records, sample):
        return None, "the workbench screen is not available"

    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot=unavailable,
                                            doctor_checks=DOCTOR)),
                 tmp_path / "x")
    svg = (top / "screenshot.svg").read_text()
    assert "ResNet-50&#160;training" in svg
    md = (top / "report.md").read_text()
    assert "the workbench screen is not available; the screenshot is a plain text rendering" in md
    assert ink_fraction((top / "screenshot.png").read_bytes())[2] > 0.01


def test_screenshot_is_drawn_by_the_callable_the_caller_passes(tmp_path):
    seen = []

    def draw(records, sample):
        seen.append(([r.workload for r in records], sample))
        return _screenshot("drawn by the caller"), None

    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot=draw, doctor_checks=DOCTOR,
                                            sample=None)), tmp_path / "x")
    assert "drawn&#160;by&#160;the&#160;caller" in (top / "screenshot.svg").read_text()
    assert seen[0][0] == ["resnet50", "generate"]
    assert "plain text rendering" not in (top / "report.md").read_text()


def test_the_screenshot_the_headless_export_passes_is_the_workbench_screen(tmp_path):
    from tui.workbench.screenshot import app_screenshot

    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot=app_screenshot,
                                            doctor_checks=DOCTOR)),
                 tmp_path / "x")
    svg = (top / "screenshot.svg").read_text().replace("&#160;", " ")
    assert "plain text rendering" not in (top / "report.md").read_text()
    assert "utilisation %" in svg and "device status and runs (text rendering)" not in svg


@pytest.mark.parametrize("draw", [None, lambda records, sample: 1 / 0], ids=["none given", "raises"])
def test_without_a_drawn_screen_the_report_uses_its_text_screen_and_says_so(tmp_path, draw):
    top = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot=draw, doctor_checks=DOCTOR)),
                 tmp_path / "x")
    assert "ResNet-50&#160;training" in (top / "screenshot.svg").read_text()
    assert "plain text rendering" in (top / "report.md").read_text()


# an export in a fresh interpreter: what it loaded, imported at the top of a module or inside a function
NO_SCREEN_EXPORT = """
import sys
from tui.report import envinfo
from tui.report.export import ExportInputs, export_bundle
envinfo.run_collect_env = lambda **kw: envinfo.CollectEnv("stub", {}, 0.1)
export_bundle(ExportInputs(sys.argv[1:-1], sys.argv[-1], doctor_checks=[]))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "textual_plotext", "plotext", "torch")
             or m.startswith("tui.workbench")))
"""


def test_an_export_without_a_screenshot_imports_neither_textual_nor_the_workbench(tmp_path):
    runs = [str(p) for p in _runs(tmp_path)]
    out = subprocess.run([sys.executable, "-c", NO_SCREEN_EXPORT, *runs, str(tmp_path / "out")],
                         capture_output=True, text=True, cwd=REPO, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert list((tmp_path / "out").glob("cardbench-report-*.zip"))
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_interrupted_export_leaves_no_zip_under_the_final_name(tmp_path, monkeypatch):
    runs = _runs(tmp_path)
    out = tmp_path / "out"
    written = []
    real = zipfile.ZipFile.writestr

    def writestr(self, info, data, *a, **kw):
        written.append(info)
        if len(written) == 5:
            raise KeyboardInterrupt  # Ctrl+C in the middle of the zip
        return real(self, info, data, *a, **kw)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", writestr)
    with pytest.raises(KeyboardInterrupt):
        export_bundle(ExportInputs(runs, out, screenshot_svg=_screenshot(), doctor_checks=DOCTOR))
    assert len(written) == 5
    assert list(out.iterdir()) == [], "a partial zip was left behind"
    assert all((r / "events.jsonl").exists() for r in runs), "the runs must survive a failed export"


def test_disk_full_midway_is_a_one_line_error_and_no_zip(tmp_path, monkeypatch):
    out = tmp_path / "out"
    real = zipfile.ZipFile.writestr
    calls = []

    def writestr(self, *a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(self, *a, **kw)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", writestr)
    with pytest.raises(BundleError, match="No space left on device"):
        export_bundle(ExportInputs(_runs(tmp_path), out, screenshot_svg=_screenshot(), doctor_checks=DOCTOR))
    assert list(out.iterdir()) == []


def test_unwritable_output_dir_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(BundleError, match=r"cannot write the report to .*a-file/out"):
        check_output_dir(blocker / "out")
    with pytest.raises(BundleError, match="not a directory"):
        check_output_dir(blocker)
    if os.geteuid() != 0:  # root writes through permission bits
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
        with pytest.raises(BundleError, match="Permission denied"):
            check_output_dir(locked)


def test_unreadable_run_dir_is_a_clear_error(tmp_path):
    with pytest.raises(BundleError, match="not a cardbench run directory"):
        export_bundle(ExportInputs([tmp_path], tmp_path / "out", screenshot_svg=_screenshot(), doctor_checks=DOCTOR))


def test_failed_run_and_host_only_telemetry(tmp_path):
    store = RunStore(tmp_path / "runs")
    run = resnet_run(store, status="failed", fallback=False, with_device=False)
    top = _unzip(export_bundle(ExportInputs([run], tmp_path / "out", screenshot_svg=_screenshot(), doctor_checks=[])),
                 tmp_path / "x")
    md = (top / "report.md").read_text()
    assert "error: CUDA out of memory (hint: lower --batch-size)" in md
    assert "the run ended **failed**" in md
    assert "No accelerator telemetry was recorded" in md
    assert f"charts/{run.name}-utilisation.png" in _files(top)  # host CPU and memory instead


def test_collect_env_parse_and_timeout(monkeypatch):
    fields = envinfo.parse_collect_env((FIXTURES / "nvidia-8x-rtx-a5000-torch1.11-cu115.txt").read_text())
    assert fields["PyTorch version"] == "1.11.0+cu115"
    assert fields["Nvidia driver version"] == "510.73.08"
    assert fields["GPU models and configuration"][0] == "GPU 0: NVIDIA RTX A5000"
    hanging = REAL_COLLECT_ENV(python=sys.executable, timeout=0.01)
    assert hanging.note and "did not finish within 0 s" in hanging.note
    missing = REAL_COLLECT_ENV(python="/nonexistent/python")
    assert missing.text is None and "could not run collect_env" in missing.note


def test_xid_lines_are_parsed():
    events = xid.parse((FIXTURES / "dmesg-ctime-xid13-xid109-2024-08-30.txt").read_text())
    assert [code for code, _ in events] == [13, 13, 13, 109]
    assert "CTX SWITCH TIMEOUT" in events[-1][1]


def test_bundle_writes_only_redacted_text(tmp_path):
    bundle = Bundle(Redactor({"HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz"}))
    bundle.add_text("a.txt", "token hf_abcdefghijklmnopqrstuvwxyz here")
    bundle.add_jsonl("e.jsonl", '{"event":"start","config":{"api_key":"zzzz-1234"}}\n{"torn')
    assert b"hf_abc" not in bundle.files["a.txt"]
    assert json.loads(bundle.files["e.jsonl"].decode().splitlines()[0])["config"]["api_key"] == "[redacted]"


def test_the_pure_python_png_reader_agrees(tmp_path):
    from report_runs import decode_png

    data = png.svg_to_png(png.terminal_svg("x", "t"))
    width, height, rows = decode_png(data)
    assert len(rows) == height and len(rows[0]) in (width * 3, width * 4)
    assert len(set(rows)) > 3  # the title bar, the text and the background differ


def test_two_exports_in_the_same_second_keep_both(tmp_path):
    bundle = Bundle(Redactor({}))
    bundle.add_text("report.md", "x")
    first = bundle.write_zip(tmp_path, "cardbench-report-h-20260101T000000Z", 1.8e9)
    second = bundle.write_zip(tmp_path, "cardbench-report-h-20260101T000000Z", 1.8e9)
    assert first != second and first.exists() and second.exists()
    with zipfile.ZipFile(second) as zf:
        assert zf.namelist()[0].startswith(f"{second.stem}/")


def test_the_caption_says_whether_the_screen_is_the_live_one_or_re_drawn_from_the_runs(tmp_path):
    """Issue 15.7: `cardbench export --run` after a dropped session drew the screen later; it was captioned
    as the screen at export time."""
    from tui.workbench.screenshot import app_screenshot

    redrawn = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out", screenshot=app_screenshot,
                                                doctor_checks=DOCTOR)),
                     tmp_path / "x")
    md = (redrawn / "report.md").read_text()
    assert "re-drawn from the runs on disk, with their own times" in md and "at export time:" not in md
    live = _unzip(export_bundle(ExportInputs(_runs(tmp_path), tmp_path / "out2", screenshot_svg="<svg/>",
                                             doctor_checks=DOCTOR)),
                  tmp_path / "y")
    assert "The workbench screen at export time:" in (live / "report.md").read_text()
