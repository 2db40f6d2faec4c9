"""`cardbench run command -- python -c '...'`: the user's job through the CLI, the runner and the run store.

The spec is registered here as the registry line will register it (workloads/__init__.py is the
integrator's), so this is the path a user's run takes, end to end.
"""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from paths import FIXTURES
from tui import cli
from tui.report.summary import summarize
from tui.store import load_run
from workloads import protocol

# a training script as a user writes one: a tqdm-style bar redrawn with \r on stderr, the Trainer's loss
# dicts and its closing summary on stdout, and a line nothing reads
JOB = textwrap.dedent('''
    import sys, time
    total = 8
    for i in range(total + 1):
        sys.stderr.write(f"\\rTraining: {100 * i // total:3d}%|{'#' * i:<8}| {i}/{total} "
                         f"[00:0{i}<00:0{total - i}, {20 + i}.00it/s, loss={2.0 / (i + 1):.4f}]")
        sys.stderr.flush()
        if i in (4, 8):
            sys.stderr.write("\\r" + " " * 60 + "\\r")
            print({"loss": round(2.0 / (i + 1), 4), "learning_rate": 5e-05, "epoch": i / total})
        time.sleep(0.02)
    sys.stderr.write("\\n")
    print({"train_runtime": 0.2, "train_samples_per_second": 321.5, "train_steps_per_second": 40.0,
           "train_loss": 0.9, "epoch": 1.0})
    print("a line nobody reads")
''')


def test_a_users_script_shows_loss_and_throughput_in_the_run_and_its_summary(command_workload, tmp_path, capsys):
    runs = tmp_path / "runs"
    code = cli.main(["run", "--runs-dir", str(runs), "command", "--", sys.executable, "-c", JOB])
    out = capsys.readouterr().out
    assert code == 0, out
    record = load_run(next(runs.iterdir()))
    assert record.status == "ok"
    steps = [(s.step, s.loss, s.throughput, s.unit) for s in record.steps]
    assert steps[0] == (1, 1.0, 21.0, "it/s") and steps[-1] == (8, pytest.approx(0.2222), 28.0, "it/s")
    assert [s.step for s in record.steps] == list(range(1, 9))
    assert all(s.total_steps == 8 for s in record.steps)
    metrics = record.result.metrics
    # the headline: the median of the 8 rates printed, the first left out (21..28 it/s -> median of 22..28)
    assert metrics["throughput"] == 25.0 and metrics["throughput_unit"] == "it/s" and metrics["warmup_steps"] == 1
    assert metrics["train_samples_per_second"] == 321.5 and metrics["exit_code"] == 0
    summary = summarize(record)  # what the report states
    assert summary.headline == 25.0 and summary.throughput.unit == "it/s" and summary.throughput.median == 25.0
    assert summary.last_loss == pytest.approx(0.2222)
    log = (record.path / "run.log").read_text()
    assert "a line nobody reads" in log and "{'train_runtime': 0.2, 'train_samples_per_second': 321.5" in log
    assert "Training: 100%|########| 8/8 [00:08<00:00, 28.00it/s, loss=0.2222]" in log
    assert "step 8/8 | loss 0.2222 | 28.0 it/s" in out  # the terminal's progress lines


def test_a_failing_command_fails_the_run_naming_its_code_and_last_lines(command_workload, tmp_path, capsys):
    runs = tmp_path / "runs"
    script = "import sys; print('epoch 1 done'); print('RuntimeError: boom', file=sys.stderr); sys.exit(3)"
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", sys.executable, "-c", script]) == 1
    err = capsys.readouterr().err
    assert "the command exited with code 3; its last lines: epoch 1 done | RuntimeError: boom" in err
    record = load_run(next(runs.iterdir()))
    assert record.status == "failed" and record.result.metrics["exit_code"] == 3


@pytest.mark.parametrize("fixture, codes", [
    ("hf_trainer-nan.txt", {"nonfinite_grad_norm": 3}),
    ("hf_trainer-zero-loss.txt", {"nonfinite_grad_norm": 5, "zero_loss": 1}),
])
def test_a_trainer_log_with_nan_is_read_and_its_anomalies_are_warnings(command_workload, tmp_path, capsys, fixture,
                                                                       codes):
    """`'grad_norm': nan` made the whole dict unreadable: no loss, no final loss, an ok run with 0 warnings."""
    runs = tmp_path / "runs"
    log = FIXTURES / "logs" / fixture
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", "cat", str(log)]) == 0
    record = load_run(next(runs.iterdir()))
    assert [s.loss for s in record.steps][:2] == ([0.2051, 0.0] if "nan" in fixture else [0.0, 0.0])
    assert record.result.metrics["final_loss"] == 0.0
    warnings = [e for e in record.events if isinstance(e, protocol.WorkloadWarning)]
    found: dict[str, int] = {}
    for w in warnings:
        found[w.code] = found.get(w.code, 0) + 1
    assert found == codes
    assert all(w.message.startswith("step ") for w in warnings)
    assert {k: v for k, v in record.result.metrics.items() if k.startswith("anomalies_")} == {
        f"anomalies_{k}": v for k, v in codes.items()}


def test_a_loss_that_jumps_tenfold_or_turns_nan_is_flagged_at_its_step(command_workload, tmp_path):
    runs = tmp_path / "runs"
    script = ("for l in 2.1 1.9 25.0 nan; do echo \"{'loss': $l, 'epoch': 1}\"; done")
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", "sh", "-c", script]) == 0
    record = load_run(next(runs.iterdir()))
    said = [(w.code, w.message) for w in record.events if isinstance(w, protocol.WorkloadWarning)]
    assert said == [("loss_jump", "step 3: loss jumped from 1.9 to 25 (more than 10x)"),
                    ("nonfinite_loss", "step 4: loss is nan: training has diverged or the device computes wrong "
                                       "numbers")]


TORCHRUN_AFTER = """E1203 07:12:01.123000 4242 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1)
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
"""


@pytest.mark.parametrize("fixture, named, hinted", [
    ("device_error-3.txt", "RuntimeError: HIP error: invalid device function", "no code for this GPU's architecture"),
    ("device_error-4.txt", "RuntimeError: CUDA error: device kernel image is invalid", "lacks code for this device"),
    ("device_error-2.txt", "EH9999: Inner Error!", "the Ascend runtime failed"),
    # the cause is the line after CANN's header: the hint reads the fault line with the lines that follow it
    ("accelerator/ascend-ei9999-hccl-task-timeout.txt", "EI9999: Inner Error!", "HCCL_EXEC_TIMEOUT"),
])
def test_a_device_error_before_the_last_lines_is_named_with_its_hint(command_workload, tmp_path, capsys, fixture,
                                                                     named, hinted):
    """Real device-error tails, with a torchrun traceback after them as a multi-card job prints it: the failure
    names the device's own line and its hint, not only the boilerplate of the last three lines."""
    log = tmp_path / "job.log"
    log.write_text((FIXTURES / "logs" / fixture).read_text() + TORCHRUN_AFTER)
    runs = tmp_path / "runs"
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", "sh", "-c", f"cat {log}; exit 1"]) == 1
    err = capsys.readouterr().err
    assert f"device error: {named}" in err and "its last lines:" in err
    record = load_run(next(runs.iterdir()))
    (error,) = [e for e in record.events if isinstance(e, protocol.Error)]
    assert named in error.message and hinted in (error.hint or "")


def test_a_job_s_escape_sequences_reach_neither_the_terminal_nor_run_log(command_workload, tmp_path, capsys):
    """OSC 0 retitles the window, OSC 52 writes the clipboard, ESC[2J clears it: defused on the way in."""
    runs = tmp_path / "runs"
    script = ("import sys; print('\\x1b]0;pwned\\x07\\x1b]52;c;ZWNobyBoaQ==\\x07step one'); "
              "print('\\x1b[2J\\x9b31mRuntimeError: boom', file=sys.stderr); sys.exit(3)")
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", sys.executable, "-c", script]) == 1
    out, err = capsys.readouterr()
    assert "its last lines: step one | RuntimeError: boom" in err
    record = load_run(next(runs.iterdir()))
    log = (record.path / "run.log").read_text()
    assert "step one" in log and "RuntimeError: boom" in log
    for text in (out, err, log, (record.path / "events.jsonl").read_text()):
        assert not any(c in text for c in "\x1b\x07\x9b") and "\\u001b" not in text and "\\u009b" not in text


@pytest.mark.parametrize("argv, said", [
    (["--"], "no command: give it after --"),
    ([], "no command: give it after --"),
    (["--", "no-such-command-xyz"], "command not found: no-such-command-xyz"),
    (["--metric", "loss=(", "--", "true"], "--metric loss: '(' is not a regular expression"),
    (["--command", "true", "--", "true"], "give the command once"),
    (["--command", "python 'unclosed"], "--command: cannot split"),
    (["--device", "npu:0", "--", "true"], "--device: 'npu:0' is not auto, cpu or cuda:N"),
    # the NAME is printed on every step line and in the result
    (["--metric", "x\x1b]0;pwned\x07/s=([0-9.]+)", "--", "true"], "a NAME is up to 40 printable characters"),
])
def test_bad_input_is_one_line_exit_2_and_no_run(command_workload, tmp_path, capsys, argv, said):
    runs = tmp_path / "runs"
    assert cli.main(["run", "--runs-dir", str(runs), "command", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1 and "\x1b" not in err
    assert not runs.exists() or not any(runs.iterdir())


def test_escapes_written_inside_a_trainer_dict_reach_neither_the_result_nor_the_terminal(command_workload, tmp_path,
                                                                                        capsys):
    """A dict's keys are string literals: '\\x1b]52;...' in the printed text is a real ESC once read, after the
    line itself was cleaned. Only plain names become figures of the run."""
    runs = tmp_path / "runs"
    script = ("print(\"{'loss': 1.5, 'epoch': 1.0, '\\\\x1b]0;pwned\\\\x07k': 3.0}\"); "
              "print(\"{'train_runtime': 1.0, 'train_loss': 1.0, '\\\\x1b]52;c;ZWNobyBoaQ==\\\\x07x': 9.0, "
              "'\\\\u202eevil': 2.0}\"); "
              "print(\"{'eval_loss': 0.5, '\\\\x9b2J': 1.0}\")")
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", sys.executable, "-c", script]) == 0
    out, err = capsys.readouterr()
    record = load_run(next(runs.iterdir()))
    metrics = record.result.metrics
    assert metrics["train_runtime"] == 1.0 and metrics["eval_loss"] == 0.5 and metrics["final_loss"] == 1.5
    assert all(key.isprintable() for key in metrics)
    for text in (out, err, (record.path / "run.log").read_text()):
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), text
    for event in record.events:   # as read back: JSON writes an ESC as \\u001b, which a raw check would miss
        if not isinstance(event, protocol.Start):   # the start event quotes the command as the user typed it
            assert not any(c in json.dumps(event.to_dict(), ensure_ascii=False) for c in "\x1b\x07\x9b\u202e")


def test_figures_the_job_names_are_bounded_in_number_length_and_unit(command_workload, tmp_path, capsys):
    """An evaluation bar's postfix names its own figures, and every new name was kept for the result: a job that
    prints thousands of them (or a 'unit' of 5000 letters) made a RESULT line, events and a report of megabytes."""
    runs = tmp_path / "runs"
    script = textwrap.dedent('''
        import sys
        for line in range(20):
            names = ", ".join(f"eval_{'x' * 150 if i % 2 else ''}{line}_{i}=1" for i in range(200))
            print(f"Validation DataLoader 0: 50%|#| 1/2 [00:01<00:01, 1.00it/s, {names}]")
        for i in range(1, 6):
            print(f"Training: {20 * i}%|#| {i}/5 [00:0{i}<00:01, 2.00{'u' * 5000}/s, loss=1.0]")
    ''')
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", sys.executable, "-c", script]) == 0
    out = capsys.readouterr().out
    record = load_run(next(runs.iterdir()))
    metrics = record.result.metrics
    named = [k for k in metrics if k.startswith("eval_")]
    assert 0 < len(named) <= 64 and all(len(k) <= 100 for k in named)
    assert len(json.dumps(metrics)) < 8000
    assert all(s.unit is None and s.throughput is None for s in record.steps) and "uuuuuuuuuuuuuuuuuuuuuuuu" not in out
    assert [s.loss for s in record.steps] == [1.0] * 5   # the steps are still read


def test_the_launchers_fields_run_the_command_split_as_a_shell_would(command_workload, tmp_path):
    from tui.workbench.launch import build_args

    args = build_args("command", {"command": f"{sys.executable} -c \"print('loss 0.5')\"",
                                  "metric": "loss=loss ([0-9.]+)"})
    assert args[0::2] == ["--command", "--metric"]
    runs = tmp_path / "runs"
    assert cli.main(["run", "--runs-dir", str(runs), "command", *args]) == 0
    record = load_run(next(runs.iterdir()))
    assert record.start.config["command"] == [sys.executable, "-c", "print('loss 0.5')"]
    assert [(s.step, s.loss) for s in record.steps] == [(1, 0.5)]


def test_options_after_the_double_dash_are_the_commands_even_cardbench_runs_own(command_workload, tmp_path, capsys):
    runs = tmp_path / "runs"
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", sys.executable, "-c",
                     "import sys; print(sys.argv[1:])", "--json", "--runs-dir", "x"]) == 0
    assert not capsys.readouterr().out.startswith("{")  # `--json` was not cardbench's
    assert "['--json', '--runs-dir', 'x']" in (next(runs.iterdir()) / "run.log").read_text()


@pytest.mark.parametrize("device, visible, said", [
    ("cpu", "''", "cpu (CUDA_VISIBLE_DEVICES empty)"),
    ("cuda:1", "'1'", "cuda (CUDA_VISIBLE_DEVICES=1)"),
])
def test_device_sets_what_the_job_sees_and_the_run_says_it(command_workload, tmp_path, device, visible, said):
    runs = tmp_path / "runs"
    script = "import os; print(repr(os.environ['CUDA_VISIBLE_DEVICES']))"
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--device", device, "--",
                     sys.executable, "-c", script]) == 0
    record = load_run(next(runs.iterdir()))
    assert record.start.device == said and visible in (record.path / "run.log").read_text()


def test_help_is_the_workloads_own_on_stdout(command_workload, tmp_path, capsys):
    assert cli.main(["run", "--runs-dir", str(tmp_path / "runs"), "command", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cardbench run command [-h]") and "-- CMD [ARGS...]" in out
    assert "--metric NAME=REGEX" in out and "--device" in out and not (tmp_path / "runs").exists()


def test_slow_and_fractional_rates_read_as_the_log_wrote_them(command_workload, tmp_path, capsys):
    """0.05 it/s is not "0.1 it/s"; a bar that printed 10.00s/it is shown in s/it; a log nothing understood ends
    with a line that says how to name its figures."""
    runs = tmp_path / "runs"
    script = ("printf 'Epoch 1:  10%%|#         | 1/10 [00:20<03:00, 20.00s/it]\\n"
              "Epoch 1:  20%%|##        | 2/10 [00:40<02:40, 0.05it/s]\\n'")
    assert cli.main(["run", "--runs-dir", str(runs), "command", "--", "sh", "-c", script]) == 0
    log = (next(runs.iterdir()) / "run.log").read_text()
    assert "20.0 s/it (tqdm's smoothed rate, written as seconds per item)" in log
    assert "0.05 it/s" in log and "0.1 it/s" not in log
    assert "--metric NAME=REGEX" not in log
    capsys.readouterr()
    runs2 = tmp_path / "runs2"
    assert cli.main(["run", "--runs-dir", str(runs2), "command", "--", "echo", "hello, no progress here"]) == 0
    log = (next(runs2.iterdir()) / "run.log").read_text()
    assert "no line of the command's output was read as progress" in log and "--metric NAME=REGEX" in log
