import json
import os
import signal
import subprocess
import sys
import time

import pytest

from paths import CHILDREN
from tui import __version__
from tui.cli import _split_run_args, main
from tui import cli
from tui.store import load_run
from workloads import registry
from workloads.child.harness import CHECK_ARGS_ENV, HELP_SHOWN, ArgumentParser, arguments_checked, run_main
from workloads.generate import cli as generate_cli
from workloads.resnet50 import options as resnet50_options


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


@pytest.mark.parametrize("argv", [
    ["run", "--runs-dir", "RUNS", "generate", "--tokens", "8"],
    ["run", "generate", "--runs-dir", "RUNS", "--tokens", "8"],
    ["--runs-dir", "RUNS", "run", "generate", "--tokens", "8"],
])
def test_runs_dir_is_taken_before_or_after_the_workload_name(argv, monkeypatch):
    seen = {}

    def fake_run(args, workload_args):
        seen.update(workload=args.workload, runs_dir=args.runs_dir, workload_args=workload_args)
        return 0
    monkeypatch.setattr(cli, "_cmd_run", fake_run)
    assert cli.dispatch(argv) == 0
    assert seen == {"workload": "generate", "runs_dir": "RUNS", "workload_args": ["--tokens", "8"]}


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


# both spellings for the first workload, then one each in turn: the flag reaches the same code for every
# workload (two children a case: ~2 s each on a loaded 2-core VM, 20 cases were 38 s)
@pytest.mark.parametrize("name, flag", [(registry.names()[0], "-h")] + [
    (name, ("--help", "-h")[i % 2]) for i, name in enumerate(registry.names())])
def test_run_workload_help_is_its_help_on_stdout_and_nothing_else(name, flag, tmp_path):
    out = _cardbench("run", name, "--runs-dir", str(tmp_path / "runs"), flag)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: cardbench run {name} [-h]")  # the command the user typed
    assert '"event"' not in out.stdout and out.stderr == ""  # `| less` shows the help, not a JSON end event
    assert "--device" in out.stdout
    assert not (tmp_path / "runs").exists()  # a look at the help is no run


@pytest.mark.parametrize("parser", [resnet50_options.build_parser, generate_cli.build_parser])
def test_every_workload_option_says_what_it_does(parser):
    silent = [a.option_strings[-1] for a in parser()._actions if not a.help]
    assert silent == []


@pytest.mark.parametrize("args, needle", [
    (["resnet50", "--bogus"], "cardbench run resnet50: unrecognized arguments: --bogus"),
    (["resnet50", "--batch-size", "0"], "argument --batch-size: must be a positive integer, got 0"),
    (["generate", "--dtype", "fp8"], "cardbench run generate: argument --dtype: invalid choice: 'fp8'"),
    # the workloads' own checks after parsing count too, not only argparse's
    (["generate", "--compile", "--cuda-graphs"], "--compile and --cuda-graphs are exclusive"),
    (["resnet50", "--lr", "inf"], "argument --lr: must be a finite number, got inf"),  # the harness refuses inf
    (["generate", "--temperature", "inf"], "argument --temperature: must be a finite number, got inf"),
])
def test_a_bad_workload_option_is_one_line_once_exit_2_and_no_run(args, needle, tmp_path):
    out = _cardbench("run", *args, "--runs-dir", str(tmp_path / "runs"))
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and needle in out.stderr
    assert f"cardbench run {args[0]}: " in out.stderr  # which command refused it
    if "argument" in needle:
        assert f"see `cardbench run {args[0]} --help`" in out.stderr
    assert not (tmp_path / "runs").exists()  # the arguments were refused before a run was recorded


def test_an_error_the_run_finds_is_said_once_on_stderr(tmp_path):
    out = _cardbench("run", "resnet50", "--runs-dir", str(tmp_path), "--device", "cpu", "--weights",
                     str(tmp_path / "missing.pt"))  # the arguments pass their check; the run refuses the file
    assert out.returncode == 2
    said = "missing.pt does not exist"
    assert (out.stdout + out.stderr).count(said) == 1
    assert [line for line in out.stderr.splitlines() if said in line][0].startswith("cardbench: error: ")
    assert "Traceback" not in out.stdout + out.stderr
    # past the argument check, a refusal of the run's own (exit 2) before it measured anything leaves no run either
    # (tests/tui/test_cli_refused_runs.py: one that measured keeps its directory)
    assert list(tmp_path.iterdir()) == []


def test_a_check_of_the_arguments_stops_before_the_workload_runs(monkeypatch, capsys):
    monkeypatch.setenv(CHECK_ARGS_ENV, "cardbench run polish")
    ran = []

    def main(emitter, argv):  # parses with the harness's parser, checks, then would run
        parser = ArgumentParser(prog="polish")
        parser.add_argument("--count", type=int)
        parser.parse_args(argv)
        arguments_checked()
        ran.append(argv)

    def plain(emitter, argv):  # parses its own way: stopped at its first event
        emitter.start("polish", {}, "cpu", {})
        ran.append(argv)

    assert run_main(main, ["--count", "3"]) == 0 and run_main(plain, []) == 0 and ran == []
    assert run_main(main, ["--count", "x"]) == 2
    assert run_main(main, ["--help"]) == HELP_SHOWN
    out, err = capsys.readouterr()
    assert out.startswith("usage: cardbench run polish [-h] [--count COUNT]") and '"event"' not in out
    assert err == ("cardbench run polish: argument --count: invalid int value: 'x' "
                   "(see `cardbench run polish --help`)\n")


@pytest.mark.parametrize("command", [["run", "generate"], ["--export-report"]])
def test_a_runs_dir_that_is_a_file_is_bad_input_for_every_command(command, tmp_path):
    blocker = tmp_path / "passwd"
    blocker.write_text("root:x:0:0\n")
    out = _cardbench("--runs-dir", str(blocker), *command, "-o" if command[0] == "--export-report" else "--json",
                     *([str(tmp_path / "out")] if command[0] == "--export-report" else []))
    assert out.returncode == 2
    assert out.stderr.strip().endswith(f"cannot use {blocker} as the runs dir: it exists and is not a directory")
    assert len(out.stderr.strip().splitlines()) == 1 and out.stdout == ""


def test_the_workbench_without_a_terminal_is_one_line_and_exit_2(tmp_path):
    out = _cardbench("--runs-dir", str(tmp_path))  # stdin /dev/null, stdout a pipe
    assert out.returncode == 2
    assert out.stdout == ""  # no escape codes painted into the pipe
    assert "needs a terminal" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_to_cardbench_run_stops_the_run_and_says_which_in_the_exit_status(sig, code, tmp_path):
    # `cardbench run` with the torch-free stand-in `tick` (tests/children/tick_cli.py): what is tested is the
    # command's signal handling and exit status, the same for every workload; a ResNet-50 child stopped by
    # SIGTERM mid-training is tests/workloads/resnet50/test_resnet50.py's (it took ~30 s a signal here)
    runs = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CHILDREN), os.environ["PYTHONPATH"]])}
    proc = subprocess.Popen([sys.executable, "-m", "tick_cli", "run", "tick", "--runs-dir", str(runs),
                             "--delay", "0.05"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            events = list(runs.glob("*/events.jsonl"))
            if events and '"step"' in events[0].read_text():
                break
            time.sleep(0.1)
        proc.send_signal(sig)
        assert proc.wait(timeout=60) == code
    finally:
        if proc.poll() is None:
            proc.kill()
    (run,) = runs.iterdir()
    assert load_run(run).status == "stopped"


def test_the_version_is_defined_once():
    # pyproject's version is tui.__version__ (dynamic): the installed distribution, --version and the report agree
    import tomllib
    from importlib.metadata import version

    from paths import REPO
    from tui import __version__

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert version("cardbench") == __version__
