import json
import subprocess
import sys

import pytest

from tui import __version__
from tui.cli import _split_run_args, main
from tui.runs import load_run


def _cardbench(*args, timeout_s=60):
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout_s)


def test_version_and_help():
    out = _cardbench("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"cardbench {__version__}"
    out = _cardbench("--help")
    assert out.returncode == 0
    for word in ("run", "devices", "doctor", "export", "--export-report", "--runs-dir"):
        assert word in out.stdout


@pytest.mark.parametrize("args, needle", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["run"], "the following arguments are required: workload"),
    (["run", "nope"], "unknown workload 'nope'"),
    (["--suite", "huge", "--export-report"], "invalid choice: 'huge'"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, needle):
    out = _cardbench(*args)
    assert out.returncode == 2
    assert needle in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_run_options_are_split_from_the_workloads_own():
    own, forwarded = _split_run_args(["--steps", "3", "--json", "--runs-dir", "/tmp/x", "--amp=bf16"])
    assert own == ["--json", "--runs-dir", "/tmp/x"]
    assert forwarded == ["--steps", "3", "--amp=bf16"]


def test_main_returns_codes_instead_of_exiting(capsys):
    assert main(["run", "nope"]) == 2
    assert "unknown workload" in capsys.readouterr().err


def test_run_json_prints_only_the_result_on_stdout_and_records_the_run(tmp_path):
    runs = tmp_path / "runs"
    out = _cardbench("run", "resnet50", "--json", "--runs-dir", str(runs), "--device", "cpu", "--image-size", "32",
                     "--batch-size", "2", "--steps", "2", "--threads", "1", timeout_s=180)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)  # one JSON object, nothing else on stdout
    assert result["workload"] == "resnet50" and result["status"] == "ok"
    assert result["images_per_s"] > 0
    assert "step 2" in out.stderr  # progress went to stderr
    (run_dir,) = runs.iterdir()
    assert str(run_dir) == result["run"]
    record = load_run(run_dir)
    assert record.status == "ok"
    assert record.telemetry and "host" in record.telemetry[0]  # sampled while the run was active


def test_run_with_a_bad_workload_option_is_one_error_line_and_exit_2(tmp_path):
    out = _cardbench("run", "resnet50", "--runs-dir", str(tmp_path), "--batch-size", "0")
    assert out.returncode == 2
    errors = [line for line in out.stderr.splitlines() if line.startswith("cardbench: error:")]
    assert len(errors) == 1 and "--batch-size" in errors[0]
    assert "Traceback" not in out.stdout + out.stderr


def test_the_workbench_without_a_terminal_is_one_line_and_exit_2(tmp_path):
    out = _cardbench("--runs-dir", str(tmp_path))  # stdin /dev/null, stdout a pipe
    assert out.returncode == 2
    assert out.stdout == ""  # no escape codes painted into the pipe
    assert "needs a terminal" in out.stderr and len(out.stderr.strip().splitlines()) == 1
