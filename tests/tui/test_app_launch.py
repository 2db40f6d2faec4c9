"""The launcher's fields -> workload arguments (UI-free), checked against the workloads' own parsers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tui.workbench.launch import BadValue, build_args, defaults, params_for, total_steps
from workloads import registry


@pytest.mark.parametrize("workload", registry.names())
def test_every_workload_declares_fields_the_launcher_can_build(workload):
    params = params_for(workload)
    assert params, f"{workload} offers no launcher field"
    assert len({p.key for p in params}) == len(params) and len({p.flag for p in params}) == len(params)
    for p in params:
        assert p.kind in ("int", "text", "choice", "switch")
        if p.kind in ("choice", "switch"):
            assert p.default in p.choices, f"{workload} {p.flag}: default {p.default!r} is not a choice"
    build_args(workload, defaults(workload))  # the defaults are valid values


def test_defaults_make_arguments():
    assert build_args("resnet50", defaults("resnet50")) == [
        "--batch-size", "64", "--epochs", "1", "--steps", "200", "--image-size", "224", "--amp", "off"]
    assert build_args("generate", defaults("generate"))[:2] == ["--tokens", "256"]


def test_blank_and_default_meaning_values_are_left_out():
    values = defaults("resnet50") | {"steps": "", "data": "synthetic", "device": " "}
    args = build_args("resnet50", values)
    assert "--steps" not in args and "--data" not in args and "--device" not in args
    assert build_args("resnet50", values | {"data": "fake", "device": "cpu"})[-4:] == [
        "--data", "fake", "--device", "cpu"]


@pytest.mark.parametrize("key,value,message", [
    ("batch_size", "0", "batch size: must be positive, not 0"),
    ("epochs", "two", "epochs: 'two' is not a whole number"),
    ("amp", "fp8", "AMP: 'fp8' is not one of off, fp16, bf16"),
])
def test_bad_values_are_one_line(key, value, message):
    with pytest.raises(BadValue, match=message):
        build_args("resnet50", defaults("resnet50") | {key: value})


def test_an_unknown_workload_runs_with_its_defaults():
    assert build_args("future", {"x": "1"}) == []


def test_total_steps_for_the_eta():
    assert total_steps("resnet50", ["--steps", "50"]) == 50
    # before the start event: the workload's defaults (3 epochs of 12800 images, batch 128)
    assert total_steps("resnet50", ["--epochs", "2"]) == 200
    assert total_steps("resnet50", ["--epochs", "2", "--batch-size", "100", "--epoch-size", "1000"]) == 20
    # a folder's size is known only once the run has read it: the --steps cap, else nothing
    assert total_steps("resnet50", ["--data", "/srv/train"]) is None
    assert total_steps("resnet50", ["--data", "/srv/train", "--steps", "9"]) == 9
    assert total_steps("resnet50", [], {"total_steps": 300}) == 300
    # resnet50's start config: epochs x ceil(epoch_size / global batch), capped by steps
    resnet = {"epochs": 3, "epoch_size": 12800, "batch_size": 128, "world_size": 1, "steps": None}
    assert total_steps("resnet50", [], resnet) == 300
    assert total_steps("resnet50", [], resnet | {"steps": 40}) == 40
    assert total_steps("resnet50", [], resnet | {"world_size": 2, "batch_size": 100}) == 3 * 64
    # generate's: decoded tokens over the timed repeats
    assert total_steps("generate", [], {"tokens": 256, "repeat": 3}) == 768
    assert total_steps("generate", ["--tokens", "64", "--repeat", "2"]) == 128
    # a workload this build does not have: only a --steps cap can say
    assert total_steps("future", ["--steps", "7"]) == 7 and total_steps("future", []) is None


@pytest.mark.parametrize("workload", registry.names())
def test_the_workload_accepts_every_flag_the_launcher_passes(workload):
    """The launcher and the workload agree on option names and choices (`--help` lists them)."""
    out = subprocess.run([sys.executable, "-m", f"workloads.{workload}", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    text = out.stdout + out.stderr  # the harness prints help on stderr (stdout carries events)
    for param in params_for(workload):
        assert param.flag in text, f"{workload} --help does not list {param.flag}"
        if param.kind == "switch":
            continue  # a bare flag: its on/off is the launcher's own
        for choice in param.choices:
            assert choice in text, f"{workload} {param.flag} does not offer {choice}"


def test_a_switch_passes_its_bare_flag_only_when_on():
    from tui.workbench.launch import BadValue, build_args, defaults

    values = defaults("generate")
    assert "--cuda-graphs" not in build_args("generate", values)
    values.update(cuda_graphs="on", repeat="5")
    args = build_args("generate", values)
    assert "--cuda-graphs" in args and args[args.index("--repeat") + 1] == "5"
    assert args.count("--cuda-graphs") == 1 and "on" not in args  # a bare flag, no value after it
    with pytest.raises(BadValue, match="not one of off, on"):
        build_args("resnet50", {**defaults("resnet50"), "channels_last": "yes"})


@pytest.mark.parametrize("workload, args", [
    ("resnet50", ["--batch-size", "8", "--steps", "12", "--image-size", "64", "--amp", "bf16", "--channels-last"]),
    ("generate", ["--tokens", "64", "--dtype", "bf16", "--cuda-graphs", "--repeat", "2"]),
])
def test_a_runs_arguments_fill_the_fields_that_rebuild_them(workload, args):
    from tui.workbench.launch import build_args, values_from_args

    built = build_args(workload, values_from_args(workload, args))
    for flag, value in zip(args, args[1:] + [""]):
        if flag.startswith("--"):
            assert flag in built
            if not value.startswith("--") and value:
                assert built[built.index(flag) + 1] == value


def test_an_empty_field_runs_the_default_it_shows():
    from tui.workbench.launch import blank_shows

    batch = next(p for p in params_for("resnet50") if p.key == "batch_size")
    assert blank_shows(batch) == "64 (default)"
    args = build_args("resnet50", defaults("resnet50") | {"batch_size": "", "epochs": " "})
    assert args[args.index("--batch-size") + 1] == "64" and args[args.index("--epochs") + 1] == "1"
    # a field whose placeholder says what empty means runs exactly that: no cap, the automatic device
    steps = next(p for p in params_for("resnet50") if p.key == "steps")
    assert blank_shows(steps) == "no cap" and "--steps" not in build_args("resnet50", {"steps": ""})
    tokens = next(p for p in params_for("generate") if p.key == "tokens")
    assert blank_shows(tokens) == "256 (default)"


def test_a_value_far_above_the_usual_is_asked_about_with_the_whole_command():
    from tui.workbench.launch import start_question, unusual

    burst = defaults("resnet50") | {"batch_size": "6", "epochs": "13064"}
    assert unusual("resnet50", burst) == ["epochs: 13064, above the usual 100"]
    question = start_question("resnet50", burst)
    assert "--batch-size 6 --epochs 13064" in question  # the stray batch size shows too
    assert start_question("resnet50", defaults("resnet50") | {"epochs": "100", "batch_size": "512"}) is None
    with pytest.raises(BadValue):  # a value the workload refuses is its one-line error, never a question
        start_question("resnet50", burst | {"batch_size": "0"})


def test_the_asked_command_line_is_shell_quoted():
    """A value with a space is one argument: the dialog shows it quoted, as it would run (issue 22.12d)."""
    import shlex

    from tui.workbench.launch import start_question

    question = start_question("resnet50", defaults("resnet50") | {"epochs": "13064", "data": "/data/my set"})
    line = next(x for x in question.splitlines() if x.startswith("this would run: "))
    argv = shlex.split(line.removeprefix("this would run: "))
    assert argv[:3] == ["cardbench", "run", "resnet50"] and "/data/my set" in argv
    assert "'/data/my set'" in line


def test_a_bound_the_spec_declares_wins_over_the_factor():
    from types import SimpleNamespace

    from tui.workbench.launch import UNUSUAL_FACTOR, bound_of

    assert bound_of(SimpleNamespace(kind="int", default="3", max=50)) == 50
    assert bound_of(SimpleNamespace(kind="int", default="3")) == 3 * UNUSUAL_FACTOR
    assert bound_of(SimpleNamespace(kind="int", default="")) is None
    assert bound_of(SimpleNamespace(kind="text", default="synthetic")) is None
