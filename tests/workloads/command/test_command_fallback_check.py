"""`cardbench run command --cpu-fallback-check on -- python train.py`: the user's own PyTorch job run through the
launcher (workloads/command/fallback_launch.py), a few of its optimizer steps profiled after a warm-up, and each op
that fell back said as the other workloads say it and kept in the result (issue 38 item 2)."""

from __future__ import annotations

import sys

import pytest

from paths import FIXTURES
from tui import cli
from tui.store import load_run
from workloads import protocol
from workloads.command.fallback_check import _launched

JOB = FIXTURES / "cpu_fallback" / "train_gelu_on_cpu.py"


def _run(tmp_path, *argv):
    runs = tmp_path / "runs"
    code = cli.main(["run", "--runs-dir", str(runs), "command", "--cpu-fallback-check", "on", "--", *argv])
    return code, load_run(next(runs.iterdir()))


def test_gelu_sent_to_the_cpu_in_a_users_job_is_a_warning_and_a_figure(command_workload, tmp_path):
    code, record = _run(tmp_path, sys.executable, str(JOB), "7")
    assert code == 0
    said = [w for w in record.events if isinstance(w, protocol.WorkloadWarning) and w.code == "cpu_fallback"]
    assert {w.extra["op"] for w in said} == {"aten::gelu", "aten::gelu_backward"}
    gelu = next(w for w in said if w.extra["op"] == "aten::gelu")
    assert gelu.message.startswith("aten::gelu ran on the CPU, not on cpu: 1 call(s) a step")
    metrics = record.result.metrics
    assert {row["op"] for row in metrics["cpu_fallback_ops"]} == {"aten::gelu", "aten::gelu_backward"}
    assert metrics["cpu_fallback_steps_watched"] == 3 and metrics["host_device_copies_per_step"] > 0
    log = (record.path / "run.log").read_text()
    assert "CPU fallback check: 3 step(s) profiled after the warm-up, then off; 2 op(s) ran on the CPU" in log
    # the job ran as if started directly: its own argv and __main__
    assert f"argv ['{JOB}', '7'], main __main__" in log and "step 7/7 done" in log


def test_a_job_with_no_optimizer_step_is_said(command_workload, tmp_path):
    script = tmp_path / "no_step.py"
    script.write_text("print('no training here')\n")
    code, record = _run(tmp_path, sys.executable, str(script))
    assert code == 0 and "cpu_fallback_ops" not in record.result.metrics
    assert "CPU fallback check: saw no step" in (record.path / "run.log").read_text()


def test_a_command_that_is_no_python_job_is_refused_in_one_line(command_workload, tmp_path, capsys):
    runs = tmp_path / "runs"
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--cpu-fallback-check", "on", "--", "true"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--cpu-fallback-check on needs a Python job" in err and len(err.splitlines()) == 1
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.parametrize("command, launched", [
    (["python3", "train.py", "--lr", "1"],
     ["python3", "-m", "workloads.command.fallback_launch", "train.py", "--lr", "1"]),
    (["/v/bin/python", "-u", "-X", "dev", "-m", "pkg.train", "-x"],
     ["/v/bin/python", "-u", "-X", "dev", "-m", "workloads.command.fallback_launch", "-m", "pkg.train", "-x"]),
    (["python", "-c", "print(1)"], None),
    (["python"], None),
    (["torchrun", "train.py"], None),
])
def test_only_python_running_a_script_or_a_module_is_launched(command, launched):
    assert _launched(command) == launched
