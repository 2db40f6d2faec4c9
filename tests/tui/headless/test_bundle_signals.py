"""The bundle phase under signals: SIGTERM ends as Ctrl+C does (no partial zip, the retry printed); a hang-up
(a dropped SSH session) lets the bundle finish, since the runs are complete, and says so in the exit status."""

from __future__ import annotations

import os
import signal
import sys
import zipfile

import pytest

from paths import CHILDREN
from recorded_env import recorded_doctor_and_env, text_screen  # noqa: F401 - fixtures
from report_runs import resnet_run
from tui import cli
from tui.report import envinfo
from tui.store import RunStore
from workloads.runner import Runner


@pytest.fixture
def export(monkeypatch, tmp_path, recorded_doctor_and_env):
    # the run keeps no doctor.json: the export runs the doctor, a recorded one here (tests/recorded_env.py)
    run = resnet_run(RunStore(tmp_path / "runs"))
    out = tmp_path / "out"

    def go() -> int:
        return cli.main(["export", "--run", str(run), "-o", str(out)])
    return run, out, go


def _signal_while_zipping(monkeypatch, signum: int) -> None:
    real = zipfile.ZipFile.writestr
    calls = []

    def writestr(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # the zip is half written: the partial file is on disk
            os.kill(os.getpid(), signum)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(zipfile.ZipFile, "writestr", writestr)


def test_sigterm_while_zipping_leaves_no_partial_and_prints_the_retry(export, monkeypatch, capsys, text_screen):
    run, out, go = export
    _signal_while_zipping(monkeypatch, signal.SIGTERM)
    assert go() == 128 + signal.SIGTERM
    assert list(out.iterdir()) == []  # neither the zip nor the hidden .partial
    err = capsys.readouterr().err
    assert "no partial zip is left" in err and f"retry with `cardbench export --run {run}" in err
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the policy ends with the bundle phase


def test_a_hangup_while_zipping_still_writes_the_bundle(export, monkeypatch, capsys, text_screen):
    run, out, go = export
    _signal_while_zipping(monkeypatch, signal.SIGHUP)
    assert go() == 128 + signal.SIGHUP
    (bundle,) = out.iterdir()
    assert bundle.suffix == ".zip" and zipfile.ZipFile(bundle).testzip() is None
    assert capsys.readouterr().out.strip() == str(bundle)


def test_device_auto_leaves_the_choice_to_the_doctor():
    from tui import headless

    seen = [{"id": "torch.sees_device", "name": "torch sees the accelerator", "status": "PASS"}]
    assert headless.accelerator([], "auto") is False  # a CPU-only machine: the scaled-down suite, not hours
    assert headless.accelerator(seen, "AUTO") is True and headless.accelerator(seen, None) is True
    assert headless.accelerator(seen, "cpu") is False and headless.accelerator([], "cuda:1") is True


@pytest.mark.parametrize("device", ["foo", "cuda:x", "gpu"])
def test_a_device_torch_would_refuse_is_one_line_and_exit_2_before_anything_runs(device, tmp_path, capsys):
    runs = tmp_path / "runs"
    assert cli.main(["--export-report", "--device", device, "--runs-dir", str(runs), "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"cardbench: --device {device!r} is not a torch device " \
                                      "(auto, cpu, cuda, cuda:1, npu:0, ...)\n"
    assert not runs.exists()


def test_a_hangup_at_the_screenshot_stage_of_the_headless_export_still_writes_the_bundle(monkeypatch, tmp_path):
    from tui import headless
    from tui.workbench import screenshot

    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv("", {}, 0.1))
    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))
    # the suite's one job runs a torch-free stand-in child (tests/children/steady.py), not GPT-2 on the CPU: the
    # signal at the screenshot stage is what is tested (a real generate child took ~10 s on a loaded 2-core VM)
    steady = [sys.executable, str(CHILDREN / "steady.py"), "3", "0.01"]
    started = []
    monkeypatch.setattr(Runner, "for_workload",
                        classmethod(lambda cls, name, args=(), **kw: started.append(name) or cls(steady, **kw)))

    def hang_up(records, sample):
        os.kill(os.getpid(), signal.SIGHUP)  # the SSH session drops while the screen is drawn
        return None, "drawn as text for this test"
    monkeypatch.setattr(screenshot, "app_screenshot", hang_up)
    out = tmp_path / "out"
    code = cli.main(["--export-report", "--workloads", "generate", "--runs-dir", str(tmp_path / "runs"),
                     "-o", str(out)])
    assert code == 128 + signal.SIGHUP and started == ["generate"]   # the stand-in ran as the suite's one job
    (bundle,) = out.glob("cardbench-report-*.zip")
    assert zipfile.ZipFile(bundle).testzip() is None and not list(out.glob(".*partial"))
