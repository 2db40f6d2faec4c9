import subprocess
import sys

import pytest

from tui import __version__
from tui.cli import _split_run_args, main


def _cardbench(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, **kwargs)


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
