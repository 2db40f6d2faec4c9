"""The bundle phase under signals: SIGTERM ends as Ctrl+C does (no partial zip, the retry printed); a hang-up
(a dropped SSH session) lets the bundle finish, since the runs are complete, and says so in the exit status."""

from __future__ import annotations

import os
import signal
import zipfile

import pytest

from report_runs import resnet_run
from tui import cli
from tui.report import envinfo
from tui.runs import RunStore


@pytest.fixture
def export(monkeypatch, tmp_path):
    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv(
        "PyTorch version: 2.14.1", {"PyTorch version": "2.14.1"}, 0.1))
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


def test_sigterm_while_zipping_leaves_no_partial_and_prints_the_retry(export, monkeypatch, capsys):
    run, out, go = export
    _signal_while_zipping(monkeypatch, signal.SIGTERM)
    assert go() == 128 + signal.SIGTERM
    assert list(out.iterdir()) == []  # neither the zip nor the hidden .partial
    err = capsys.readouterr().err
    assert "no partial zip is left" in err and f"retry with `cardbench export --run {run}" in err
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the policy ends with the bundle phase


def test_a_hangup_while_zipping_still_writes_the_bundle(export, monkeypatch, capsys):
    run, out, go = export
    _signal_while_zipping(monkeypatch, signal.SIGHUP)
    assert go() == 128 + signal.SIGHUP
    (bundle,) = out.iterdir()
    assert bundle.suffix == ".zip" and zipfile.ZipFile(bundle).testzip() is None
    assert capsys.readouterr().out.strip() == str(bundle)
