"""`cardbench --export-report` and `cardbench export --run`: the suite's plan, progress, errors, and one real run."""

import io
import json
import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from recorded_env import recorded_doctor_and_env, text_screen  # noqa: F401 - fixtures
from report_runs import generate_run, resnet_run
from tui import headless
from tui.cli import build_parser
from tui.report.bundle import BundleError
from tui.store import RunStore, load_run
from workloads import exit_codes
from workloads.runner import Runner
from paths import CHILDREN



def _cli(args, env=None, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, **kw)


def test_cpu_suite_is_scaled_down_and_says_so():
    jobs, notes = headless.suite_jobs("quick", None, accelerator=False, device=None)
    assert [j.workload for j in jobs] == ["resnet50", "generate"]
    resnet, generate = jobs
    assert resnet.args[:6] == ["--steps", "12", "--batch-size", "8", "--image-size", "64"] and resnet.total == 12
    assert generate.args[:2] == ["--tokens", "256"] and generate.total == 256
    assert any("scaled down" in str(n) for n in notes) and any("one timed run" in str(n) for n in notes)


def test_accelerator_suites_use_the_reports_shape():
    quick, _ = headless.suite_jobs("quick", None, accelerator=True, device="cuda:1", amp="bf16")
    assert quick[0].args == ["--steps", "200", "--batch-size", "128", "--amp", "bf16", "--device", "cuda:1"]
    assert quick[1].args == ["--tokens", "256", "--device", "cuda:1"] and quick[1].total == 768
    standard, notes = headless.suite_jobs("standard", ["resnet50"], accelerator=True, device=None)
    assert [j.workload for j in standard] == ["resnet50"] and notes == []
    assert standard[0].args == ["--epochs", "3", "--batch-size", "128", "--amp", "off"]
    assert standard[0].total == 300  # 3 epochs of the default 12,800 images at batch 128


def test_amp_and_accelerator_come_from_the_doctor():
    checks = [{"name": "torch sees the accelerator", "status": "PASS"},
              {"name": "bf16 autocast runs on the device", "status": "FAIL"},
              {"name": "fp16 autocast runs on the device", "status": "PASS"}]
    assert headless.accelerator(checks, None) and headless._amp(checks) == "fp16"
    assert not headless.accelerator(checks, "cpu") and not headless.accelerator([], None)


def test_bad_override_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(headless.ARGS_ENV, "{not json")
    with pytest.raises(BundleError, match="CARDBENCH_HEADLESS_ARGS is not JSON"):
        headless.env_overrides()


def test_progress_is_lines_without_a_tty_and_a_bar_on_one():
    plain = io.StringIO()
    p = headless.Progress(phases=2, stream=plain, tty=False)
    p.begin("doctor")
    p.update(0.5, "half")  # within LINE_EVERY_S: no line
    p.end()
    assert plain.getvalue() == "cardbench: [1/2] doctor\n"
    bar = io.StringIO()
    p = headless.Progress(phases=2, stream=bar, tty=True)
    p.begin("resnet50")
    p.update(0.5, "step 6/12")
    assert "\r" in bar.getvalue() and "25%" in bar.getvalue() and "step 6/12" in bar.getvalue()


def test_unwritable_output_dir_fails_at_once_with_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = _cli(["--runs-dir", str(tmp_path / "runs"), "--export-report", "-o", str(blocker / "out")], timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardbench: cannot write the report to") and "a-file/out" in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_export_from_runs_on_disk(tmp_path, capsys, recorded_doctor_and_env, text_screen):
    # in this process, with the recorded collect_env and a text screen (a child process, collect_env's torch child
    # and the off-screen workbench took ~11 s on a loaded 2-core VM); the real ones: the end-to-end run below
    from tui import cli

    store = RunStore(tmp_path / "runs")
    runs = [resnet_run(store), generate_run(store)]
    (runs[0] / headless.DOCTOR_FILE).write_text(json.dumps([{"name": "torch imports", "status": "PASS",
                                                             "evidence": "torch 9.9", "hint": ""}]))
    code = cli.main(["--lang", "zh", "export", "--run", str(runs[0]), "--run", str(runs[1]),
                     "-o", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 0, err
    path = Path(out.strip().splitlines()[-1])
    assert path.parent == tmp_path / "out" and path.exists()
    with zipfile.ZipFile(path) as zf:
        md = zf.read(f"{path.stem}/report.md").decode()
        names = zf.namelist()
    assert md.startswith("# cardbench 测试报告") and "torch 9.9" in md
    assert "体检结果取自运行" in md and "由磁盘上的运行记录" in md  # the framing notes are translated too
    assert f"{path.stem}/logs/{runs[1].name}/events.jsonl" in names


def test_export_of_a_missing_run_is_one_line(tmp_path):
    done = _cli(["export", "--run", str(tmp_path / "nope"), "-o", str(tmp_path / "out")], timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"cardbench: {tmp_path / 'nope'} is not a directory (give a run directory, " \
                                  "e.g. cardbench-runs/<run id>)"


def _args(tmp_path, *extra):
    return build_parser().parse_args(["--runs-dir", str(tmp_path / "runs"), "--export-report",
                                      "-o", str(tmp_path / "out"), *extra])


def test_a_bundle_that_cannot_be_written_keeps_the_runs_and_names_them(tmp_path, monkeypatch, capsys):
    async def fake_suite(jobs, session, state, progress, doctor, suite):
        state.run_dirs.append(generate_run(session.store))
        state.ran.append("generate")

    def full_disk(*a, **kw):
        raise BundleError(f"cannot write the report to {tmp_path / 'out'}: No space left on device")

    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    monkeypatch.setattr(headless, "run_suite", fake_suite)
    monkeypatch.setattr(headless, "build_bundle", full_disk)
    assert headless.export_report(_args(tmp_path, "--workloads", "generate")) == exit_codes.FAILED
    err = capsys.readouterr().err.strip().splitlines()[-1]
    (run,) = list((tmp_path / "runs").iterdir())
    assert "No space left on device" in err and f"cardbench export --run {run}" in err
    assert load_run(run).status == "ok"


def test_a_signal_stops_the_workload_skips_the_rest_and_still_writes_the_bundle(tmp_path, monkeypatch):
    """SIGTERM (or a closed SSH session's SIGHUP) mid-run: the child stops, the bundle is written, exit 130."""
    steady = [sys.executable, str(CHILDREN / "steady.py"), "1000", "0.05"]
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(steady, **kw)))
    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    built = {}

    def build(run_dirs, output, progress, doctor, doctor_note, notes, sample, options):
        built.update(run_dirs=list(run_dirs), notes=list(notes))
        return output / "bundle.zip"

    monkeypatch.setattr(headless, "build_bundle", build)
    sent = []
    real_update = headless.Progress.update

    def update(self, fraction, detail):
        if not sent:
            sent.append(detail)
            os.kill(os.getpid(), signal.SIGTERM)
        return real_update(self, fraction, detail)

    monkeypatch.setattr(headless.Progress, "update", update)
    assert headless.export_report(_args(tmp_path)) == exit_codes.INTERRUPTED
    (run,) = built["run_dirs"]
    record = load_run(run)
    assert record.status == "stopped" and 0 < len(record.steps) < 1000
    assert any("interrupted" in str(n) for n in built["notes"])
    assert any("generate did not run" in str(n) for n in built["notes"])


def _close_stdin():
    os.close(0)


def test_headless_run_without_tty_and_with_stdin_closed(tmp_path):
    """The real thing, shrunk: the doctor, a workload that fails on bad input, a tiny generation, the bundle."""
    env = {headless.ARGS_ENV: json.dumps({
        "resnet50": ["--batch-size", "0"],  # bad input: an error event and exit 2 at once
        "generate": ["--model-size", "tiny", "--tokens", "16", "--repeat", "1", "--warmup", "2", "--device", "cpu"],
    })}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "--runs-dir", str(tmp_path / "runs"), "--export-report",
         "-o", str(tmp_path / "out"), "--price-per-hour", "1.5"],
        capture_output=True, text=True, timeout=180, env={**os.environ, **env}, preexec_fn=_close_stdin,
        start_new_session=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # a workload failed...
    assert "Traceback" not in done.stderr and "\r" not in done.stderr  # ...plain lines, no bar without a TTY
    assert "cardbench: [1/4] doctor" in done.stderr and "resnet50: failed" in done.stderr
    path = Path(done.stdout.strip().splitlines()[-1])  # ...and the bundle is still written
    assert path.exists() and path.parent == tmp_path / "out"
    runs = sorted((tmp_path / "runs").iterdir(), key=lambda r: load_run(r).config["created"])
    assert [load_run(r).workload for r in runs] == ["resnet50", "generate"]
    assert (runs[1] / "telemetry.jsonl").exists() and (runs[1] / headless.DOCTOR_FILE).exists()
    with zipfile.ZipFile(path) as zf:
        top = path.stem
        summary = json.loads(zf.read(f"{top}/metrics/summary.json"))
        md = zf.read(f"{top}/report.md").decode()
        sums = zf.read(f"{top}/SHA256SUMS").decode()
    assert [r["status"] for r in summary["runs"]] == ["failed", "ok"]
    assert summary["runs"][1]["result"]["tokens_per_s"] > 0
    assert "--batch-size" in md and "per million tokens" in md
    assert "screenshot.png" in sums and "nvidia-smi.txt" in sums


def test_headless_and_report_modules_load_neither_torch_nor_textual():
    code = ("import sys, tui.headless, tui.report, tui.report.contents, tui.report.charts, tui.report.png, "
            "tui.report.envinfo, tui.report.smi, tui.redact, tui.report.screen\n"
            "print(','.join(m for m in ('torch', 'textual', 'torchvision') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_cpu_time_budget_stops_a_slow_run_without_failing_the_suite(tmp_path, monkeypatch):
    steady = [sys.executable, str(CHILDREN / "steady.py"), "1000", "0.05"]
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(steady, **kw)))
    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))  # torch sees no accelerator: CPU
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    monkeypatch.setenv(headless.CPU_BUDGET_ENV, "3")
    built = {}
    monkeypatch.setattr(headless, "build_bundle", lambda run_dirs, output, progress, doctor, note, notes, sample,
                        options: built.update(run_dirs=list(run_dirs), notes=list(notes)) or output / "b.zip")
    assert headless.export_report(_args(tmp_path)) == exit_codes.OK
    records = [load_run(p) for p in built["run_dirs"]]
    assert [r.status for r in records] == ["stopped", "stopped"]
    assert all(0 < len(r.steps) < 1000 for r in records)
    assert sum("was stopped at its share of the" in str(n) for n in built["notes"]) == 2


TWO_CARDS_TORCH_BLIND = [
    {"id": "cli.answers", "name": "management CLI answers", "status": "PASS", "evidence": "nvidia-smi lists 2 GPU(s)",
     "hint": "", "value": 2.0, "unit": "devices"},
    {"id": "torch.sees_device", "name": "torch sees the accelerator", "status": "FAIL",
     "evidence": "management CLI/NVML/PCI see 2 accelerator(s), torch sees none",
     "hint": "this PyTorch does not match the driver: use the image's PyTorch", "value": 0.0, "unit": "devices"},
]


@pytest.mark.parametrize("allow_cpu", [False, True])
def test_work_on_the_cpu_beside_listed_cards_exits_1_unless_allowed(tmp_path, monkeypatch, capsys, allow_cpu):
    """nvidia-smi lists two cards, torch sees none: the suite runs on the CPU, and that is not a pass."""
    steady = [sys.executable, str(CHILDREN / "steady.py"), "3", "0.01"]  # starts on "cpu"
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(steady, **kw)))
    monkeypatch.setattr(headless, "run_doctor", lambda progress: (TWO_CARDS_TORCH_BLIND, None))
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    built = {}
    monkeypatch.setattr(headless, "build_bundle", lambda run_dirs, output, progress, doctor, note, notes, sample,
                        options: built.update(run_dirs=list(run_dirs), notes=list(notes)) or output / "b.zip")
    args = _args(tmp_path)
    args.allow_cpu = allow_cpu  # `--allow-cpu`
    code = headless.export_report(args)
    err = capsys.readouterr().err
    # before the suite: the warning; after it: the bundle is written either way
    assert "WARNING: torch sees none of the 2 accelerators" in err and built["run_dirs"]
    for run in built["run_dirs"]:  # each run records it, so the report's problems list it
        assert [e.code for e in load_run(run).events if e.kind == "warning"] == ["cpu_while_accelerators_listed"]
    if allow_cpu:
        assert code == exit_codes.OK
        assert any("--allow-cpu" in str(n) for n in built["notes"])
    else:
        assert code == exit_codes.FAILED
        last = err.strip().splitlines()[-1]
        assert last.startswith("cardbench: WARNING: the workloads ran on the CPU, not on the 2 accelerators")
        assert "image's PyTorch" in last and "--allow-cpu" in last


def test_the_cpu_asked_for_is_no_failure(tmp_path, monkeypatch, capsys):
    steady = [sys.executable, str(CHILDREN / "steady.py"), "3", "0.01"]
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(steady, **kw)))
    monkeypatch.setattr(headless, "run_doctor", lambda progress: (TWO_CARDS_TORCH_BLIND, None))
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    monkeypatch.setattr(headless, "build_bundle", lambda *a: a[1] / "b.zip")
    assert headless.export_report(_args(tmp_path, "--device", "cpu")) == exit_codes.OK
    assert "WARNING" not in capsys.readouterr().err
