"""The ResNet-50 workload end to end on the CPU, with tiny shapes (32 px, batch 2, a few steps).

Runs that must show process-level behaviour (the event stream on stdout, no
traceback on the terminal, DataLoader workers, torchrun) run as
``python -m workloads.resnet50``; the rest run in-process, which spares the
torch import each time.
"""
import io
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from test_resnet50_parts import hold_checkpoint_lock, make_image_folder
from workloads import protocol
from workloads.resnet50 import cli as resnet50
from tui.figures import result_text
from workloads.child.harness import Emitter, run_main
from workloads.resnet50.result_record import ResNet50Result

# one thread: on a busy 2-core machine two threads wait on each other far more than they gain
TINY = ["--device", "cpu", "--image-size", "32", "--batch-size", "2", "--num-classes", "10", "--warmup", "1",
        "--threads", "1"]


def run_inprocess(*args):
    stream = io.StringIO()
    code = run_main(resnet50.main, [*TINY, *args], emitter=Emitter(stream=stream))
    return code, [protocol.parse_line(line) for line in stream.getvalue().splitlines()]


def run_child(*args, env=None, timeout=240):
    proc = subprocess.run([sys.executable, "-m", "workloads.resnet50", *TINY, *args], capture_output=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    events = [protocol.parse_line(line) for line in proc.stdout.splitlines()]  # every stdout line is an event
    return proc.returncode, events, proc.stderr.decode()


def of(events, kind):
    return [e for e in events if e.kind == kind]


def result(events):
    (found,) = of(events, "result")
    return found.metrics


def assert_every_figure_declared(metrics):
    """Each key of a result is a figure of ResNet50Result, and the RESULT line says it by its label (a key the
    record left out would be said raw, as written)."""
    assert [key for key in metrics if ResNet50Result.figure(key) is None] == []
    line = result_text("resnet50", metrics)
    assert [key for key in metrics if ResNet50Result.figure(key).label("en") not in line] == [], line


def test_synthetic_fp32_run_with_checkpoint_then_resume(tmp_path, capfd):
    ckpt = tmp_path / "ckpt"
    code, events = run_inprocess("--epochs", "2", "--epoch-size", "4", "--checkpoint", str(ckpt))
    log = capfd.readouterr().err
    assert code == 0, log
    assert [e.kind for e in events][0] == "start" and events[-1].kind == "end" and events[-1].status == "ok"
    start = events[0]
    assert start.workload == "resnet50" and start.config["batch_size"] == 2 and start.config["amp"] == "off"
    assert start.device.startswith("cpu") and "torch" in start.versions
    steps = of(events, "step")
    assert [s.step for s in steps] == [1, 2, 3, 4] and [s.epoch for s in steps] == [1, 1, 2, 2]
    for s in steps:
        assert s.unit == "images/s" and s.throughput > 0 and s.loss is not None
        assert s.step_s == pytest.approx(s.data_wait_s + s.compute_s, rel=1e-6)
        assert s.memory_allocated_bytes > 0
    assert steps[0].extra.get("warmup") is True and "warmup" not in steps[1].extra
    assert "epoch_images_per_s" in steps[1].extra and "epoch_loss" in steps[3].extra
    assert "epoch_loss" not in steps[0].extra
    metrics = result(events)
    assert metrics["steps"] == 4 and metrics["warmup_steps"] == 1 and metrics["epochs"] == 2
    assert metrics["images_per_s"] > 0 and metrics["images_per_s_compute"] >= metrics["images_per_s"] * 0.99
    assert metrics["precision"] == "fp32" and metrics["final_loss"] == steps[-1].loss
    assert metrics["peak_memory_bytes"] > 0 and metrics["total_s"] > 0 and metrics["fallbacks"] == []
    assert metrics["gflop_per_image"] == pytest.approx(24.5 * (32 / 224) ** 2, rel=1e-3)
    assert_every_figure_declared(metrics)
    assert "epoch 2/2 done, 2 steps: mean loss" in log and "checkpoint saved" in log and "Traceback" not in log
    assert (ckpt / "resnet50-last.pt").is_file()

    code, events = run_inprocess("--epochs", "3", "--epoch-size", "4", "--checkpoint", str(ckpt), "--resume")
    log = capfd.readouterr().err
    assert code == 0, log
    assert "resumed from" in log
    steps = of(events, "step")
    assert [s.step for s in steps] == [5, 6] and {s.epoch for s in steps} == {3}
    assert torch.load(ckpt / "resnet50-last.pt", weights_only=True)["epoch"] == 3

    # the checkpoint as fine-tuning weights: its 10-class head gives way to a 3-class one
    code, events = run_inprocess("--weights", str(ckpt / "resnet50-last.pt"), "--num-classes", "3", "--steps", "1")
    assert code == 0 and result(events)["num_classes"] == 3
    assert "new 3-class head (the file's has 10)" in capfd.readouterr().err

    # a damaged counter in a checkpoint: one line naming the file, not a ValueError's traceback
    saved = torch.load(ckpt / "resnet50-last.pt", weights_only=True)
    torch.save({**saved, "epoch": "two"}, ckpt / "resnet50-last.pt")
    code, events = run_inprocess("--epochs", "3", "--checkpoint", str(ckpt), "--resume")
    assert code == 2 and "Traceback" not in capfd.readouterr().err
    (error,) = of(events, "error")
    assert error.message == (f"checkpoint {ckpt / 'resnet50-last.pt'} is damaged: its 'epoch' is 'two', "
                             "not a whole number of 0 or more")


def test_a_second_run_on_a_checkpoint_directory_in_use_is_refused_at_start(tmp_path, capfd):
    ckpt = tmp_path / "ckpt"
    holder = hold_checkpoint_lock(ckpt)  # stands in for a live run saving there
    try:
        code, events = run_inprocess("--steps", "1", "--checkpoint", str(ckpt))
    finally:
        holder.kill()
        holder.wait()
    assert code == 2 and [e.kind for e in events] == ["error", "end"]  # refused before it started
    (error,) = of(events, "error")
    assert f"another run (pid {holder.pid}) is using --checkpoint {ckpt}" in error.message
    assert "\n" not in error.message and "another --checkpoint DIR" in error.hint
    assert "Traceback" not in capfd.readouterr().err
    # that run gone (killed: its lock file stays behind), the next run takes the directory over and leaves no lock
    code, events = run_inprocess("--epochs", "1", "--epoch-size", "2", "--checkpoint", str(ckpt))
    assert code == 0, capfd.readouterr().err
    assert sorted(p.name for p in ckpt.iterdir()) == ["resnet50-last.pt"]


def test_a_diverged_loss_is_a_warning_and_never_overwrites_a_good_checkpoint(tmp_path, capfd):
    ckpt = tmp_path / "ckpt"
    code, _ = run_inprocess("--epochs", "1", "--epoch-size", "2", "--checkpoint", str(ckpt))
    assert code == 0
    code, events = run_inprocess("--epochs", "1", "--epoch-size", "6", "--lr", "1e30", "--checkpoint", str(ckpt))
    log = capfd.readouterr().err
    assert code == 0 and events[-1].status == "ok", log  # the step times still hold: the run ends, not silently
    steps = of(events, "step")
    assert len(steps) == 3 and steps[-1].loss is None  # NaN travels as null
    warnings = {w.code: w for w in of(events, "warning")}
    diverged = warnings["nonfinite_loss"]
    assert diverged.message.startswith(f"the loss is nan at step {diverged.extra['step']} (epoch 1")
    assert "--lr" in diverged.message and len(of(events, "warning")) == 2  # once, not per step
    assert "no checkpoint for epoch 1: the weights are NaN or infinite" in warnings["checkpoint_not_saved"].message
    metrics = result(events)
    assert metrics["nonfinite_loss_steps"] >= 2 and metrics["final_loss"] is None
    assert "loss NaN/inf in" in log
    kept = torch.load(ckpt / "resnet50-last.pt", weights_only=True)
    assert kept["step"] == 1 and all(torch.isfinite(t).all() for t in kept["model"].values())


def test_a_compile_failure_falls_back_to_the_eager_model(monkeypatch):
    def broken_compile(model, **kwargs):
        def run(*args):
            raise RuntimeError("BackendCompilerFailed: no C++ compiler for inductor")
        return run

    monkeypatch.setattr(torch, "compile", broken_compile)
    code, events = run_inprocess("--compile", "--steps", "2")
    assert code == 0
    (fallback,) = of(events, "fallback")
    assert "BackendCompilerFailed" in fallback.error and "eager" in fallback.action
    metrics = result(events)
    assert metrics["compiled"] is False and metrics["steps"] == 2


def test_injected_amp_failure_falls_back_naming_the_layer_and_finishes():
    code, events, log = run_child("--amp", "bf16", "--steps", "3",
                                  env={"CARDBENCH_INJECT_AMP_FAILURE": "layer1.0.conv2"})
    assert code == 0, log
    (fallback,) = of(events, "fallback")
    assert "device kernel image is invalid" in fallback.error
    assert fallback.layer == "layer1.0.conv2" and fallback.op == "Conv2d" and fallback.extra["step"] == 1
    assert "autocast off for Conv2d" in fallback.action and "bf16" in fallback.action
    steps = of(events, "step")
    assert len(steps) == 3 and steps[0].extra.get("fallback") is True
    assert events.index(fallback) < events.index(steps[0])
    metrics = result(events)
    assert metrics["precision"] == "bf16 (fp32: Conv2d)" and metrics["precision_requested"] == "bf16"
    assert metrics["fallbacks"][0]["layer"] == "layer1.0.conv2"
    assert metrics["warmup_steps"] == 2  # the step that fell back, then the warm-up again
    assert "FALLBACK at layer1.0.conv2 (Conv2d)" in log and "precision bf16 (fp32: Conv2d)" in log
    assert events[-1].status == "ok"


def test_failure_no_single_layer_explains_continues_in_fp32(monkeypatch):
    monkeypatch.setenv("CARDBENCH_INJECT_AMP_FAILURE", "layer1")  # a whole stage: each leaf alone works
    code, events = run_inprocess("--amp", "bf16", "--steps", "2")
    assert code == 0
    (fallback,) = of(events, "fallback")
    assert fallback.layer is None and "continuing in FP32" in fallback.action
    assert "no single layer fails alone" in fallback.action
    assert result(events)["precision"] == "fp32" and len(of(events, "step")) == 2


def test_bf16_without_failure_keeps_bf16():
    code, events = run_inprocess("--amp", "bf16", "--steps", "2", "--channels-last")
    assert code == 0 and not of(events, "fallback")
    metrics = result(events)
    assert metrics["precision"] == "bf16" and metrics["channels_last"] is True
    assert events[0].config["channels_last"] is True


def test_fake_data_through_dataloader_workers():
    code, events, log = run_child("--data", "fake", "--epoch-size", "6", "--epochs", "1", "--num-workers", "2")
    assert code == 0, log
    steps = of(events, "step")
    assert len(steps) == 3 and all(s.data_wait_s >= 0 for s in steps)
    metrics = result(events)
    assert metrics["data"].startswith("FakeData") and metrics["data_wait_fraction"] is not None
    assert metrics["skipped_files"] == 0


def test_image_folder_skips_and_counts_bad_files(tmp_path):
    root = make_image_folder(tmp_path / "data", per_class=3)
    code, events = run_inprocess("--data", str(root), "--epochs", "1", "--num-workers", "0",
                                 "--num-classes", "2")
    assert code == 0
    warnings = [w.message for w in of(events, "warning")]
    assert any("1 non-image files" in w and "notes0.txt" in w for w in warnings)
    assert any("unreadable image" in w and "broken0.jpg" in w for w in warnings)
    metrics = result(events)
    assert metrics["skipped_files"] == 2 and metrics["num_classes"] == 2
    assert len(of(events, "step")) == 3  # 7 files, 6 images: 3 batches of 2, none short


def test_an_oversized_image_is_skipped_and_counted_not_fatal(tmp_path, monkeypatch):
    from PIL import Image

    root = make_image_folder(tmp_path / "data", per_class=2, corrupt=0, not_images=0)
    Image.new("RGB", (100, 100)).save(root / "dog" / "huge.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 2000)  # in-process, no workers: the limit holds in the loader
    code, events = run_inprocess("--data", str(root), "--epochs", "1", "--num-workers", "0", "--num-classes", "2")
    assert code == 0 and events[-1].status == "ok"
    assert any("unreadable image" in w.message and "huge.png" in w.message for w in of(events, "warning"))
    metrics = result(events)
    assert metrics["skipped_files"] == 1 and metrics["skipped_examples"] == ["dog/huge.png"]
    assert len(of(events, "step")) == 2  # 4 readable images: 2 full batches


def test_find_batch_size_with_injected_out_of_memory(monkeypatch):
    monkeypatch.setenv("CARDBENCH_INJECT_OOM_BATCH", "5")
    code, events = run_inprocess("--find-batch-size", "--max-batch-size", "16")
    assert code == 0
    metrics = result(events)
    assert metrics["max_batch_size"] == 5 and metrics["smallest_failing_batch_size"] == 6
    assert not metrics["capped"] and metrics["images_per_s"] > 0
    assert [(t["batch_size"], t["fits"]) for t in metrics["tried"]] == [
        (2, True), (4, True), (8, False), (6, False), (5, True)]
    assert [s.extra["batch_size"] for s in of(events, "step")] == [2, 4, 8, 6, 5]
    assert_every_figure_declared(metrics)


def test_a_step_larger_than_the_memory_is_refused_before_allocating_with_the_figures(monkeypatch):
    from workloads.resnet50 import setup

    monkeypatch.setattr(setup, "total_memory", lambda device: 2**30)  # a 1 GiB machine
    code, events = run_inprocess("--image-size", "224", "--batch-size", "12", "--steps", "1")
    assert code == 2 and [e.kind for e in events] == ["error", "end"]
    (error,) = of(events, "error")
    assert error.message == ("--image-size 224 with a batch of 12 needs about 1.4 GiB for one training step; "
                             "cpu has 1.0 GiB in all")
    assert "lower --batch-size or --image-size" in error.hint and "--find-batch-size" in error.hint
    # autocast halves the activations: the same batch in bf16 is within the estimate's reach of 1 GiB
    assert setup.step_memory_estimate(12, 224, autocast=True) < 2**30 < setup.step_memory_estimate(12, 224, False)
    assert setup.step_memory_estimate(1, 448, False) - setup.MODEL_STATE_BYTES == pytest.approx(4e8)  # pixels
    # --find-batch-size is held to one image only: it finds the rest by running out of memory
    code, events = run_inprocess("--find-batch-size", "--max-batch-size", "2")
    assert code == 0 and result(events)["max_batch_size"] == 2


def test_out_of_memory_during_training_is_a_failure_with_a_hint(monkeypatch):
    monkeypatch.setenv("CARDBENCH_INJECT_OOM_BATCH", "1")
    code, events = run_inprocess("--steps", "2")
    assert code == 1 and not of(events, "fallback")
    (error,) = of(events, "error")
    assert "out of memory" in error.message and "--find-batch-size" in error.hint


@pytest.fixture
def foreign_files(tmp_path):
    linear = tmp_path / "linear.pt"
    torch.save(torch.nn.Linear(3, 2).state_dict(), linear)
    foreign_ckpt = tmp_path / "foreign_ckpt"
    foreign_ckpt.mkdir()
    torch.save({"format": "cardbench-resnet50", "model": torch.nn.Linear(3, 2).state_dict()},
               foreign_ckpt / "resnet50-last.pt")
    other_writer = tmp_path / "other_writer"
    other_writer.mkdir()
    torch.save({"model": {}}, other_writer / "resnet50-last.pt")
    (tmp_path / "garbage.pt").write_bytes(b"\x80\x02}q\x00damaged")
    (tmp_path / "empty").mkdir()
    make_image_folder(tmp_path / "no_images", per_class=0, classes=("a",), corrupt=0, not_images=2)
    return tmp_path


@pytest.mark.parametrize("args, message", [
    (["--data", "{tmp}/missing"], "does not exist"),
    (["--data", "{tmp}/empty"], "holds no class folders"),
    (["--data", "{tmp}/no_images"], "holds no images (2 non-image files skipped)"),
    (["--device", "nosuchdevice"], "unknown device type 'nosuchdevice'; the known types are cuda, npu, mlu, musa, "
                                   "xpu, hpu, mps, cpu"),
    (["--device", "cuda:99"], "cuda:99"),
    (["--weights", "{tmp}/linear.pt"], "is not a ResNet-50 checkpoint"),
    (["--checkpoint", "{tmp}/foreign_ckpt", "--resume"], "is not a ResNet-50 checkpoint"),
    (["--checkpoint", "{tmp}/other_writer", "--resume"], "was not written by cardbench"),
    (["--checkpoint", "{tmp}/empty", "--resume"], "does not exist"),
    (["--weights", "{tmp}/garbage.pt"], "weights file {tmp}/garbage.pt is damaged or not a state dict"),
    (["--resume"], "--resume needs --checkpoint"),
    (["--batch-size", "-1"], "must be a positive integer"),
    (["--amp", "fp8"], "invalid choice"),
    (["--image-size", "16"], "too small"),
    (["--batch-size", "1"], "batch norm"),
    (["--lr", "inf"], "argument --lr: must be a finite number, got inf"),
    (["--image-size", "99999999"], "--image-size 99999999 with a batch of 2 needs about 34.6 EiB for one training "
                                   "step; cpu has "),
    (["--image-size", "99999999", "--find-batch-size"], "--image-size 99999999 with a batch of 1 needs about"),
    (["--lr", "1e999"], "argument --lr: must be a finite number, got 1e999"),
])
def test_bad_input_is_one_error_event_and_exit_2(foreign_files, capfd, args, message):
    code, events = run_inprocess(*[a.format(tmp=foreign_files) for a in args], "--steps", "1")
    assert code == 2
    (error,) = of(events, "error")
    assert message.format(tmp=foreign_files) in error.message and "\n" not in error.message
    assert "weights_only" not in f"{error.message} {error.hint}"  # no advice to load a file unsafely
    assert events[-1].kind == "end" and events[-1].status == "failed" and events[-1].exit_code == 2
    assert not of(events, "step")
    assert "Traceback" not in capfd.readouterr().err


def test_bad_input_in_a_child_prints_no_traceback(tmp_path):
    code, events, log = run_child("--batch-size", "0")
    assert code == 2 and [e.kind for e in events] == ["error", "end"]
    assert "must be a positive integer" in events[0].message
    code, events, log = run_child("--data", str(tmp_path / "missing"), "--steps", "1")
    assert code == 2 and of(events, "error")[0].message.endswith("does not exist")
    assert "Traceback" not in log


def test_threads_far_beyond_the_cpus_are_refused_not_a_crash():
    # torch.set_num_threads(100000) then a matrix product ends the process on SIGSEGV: a child, in case
    code, events, log = run_child("--threads", "100000", "--steps", "1")
    assert code == 2 and [e.kind for e in events] == ["error", "end"], log
    cpus = os.cpu_count()
    assert events[0].message == f"--threads 100000 is more than 4 x the {cpus} CPUs here"
    assert f"--threads {cpus} or fewer" in events[0].hint


def _tagged_processes(tag):
    """Live processes whose environment carries this test's tag: the launcher, torchrun and every rank.

    torchrun puts each rank in a session of its own, so looking at the launcher's
    process group alone would miss them.
    """
    marker = f"CARDBENCH_TEST_TAG={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except OSError:
            continue
        found.append(int(entry))
    return found


def _wait_until_gone(tag, seconds=15):
    deadline = time.monotonic() + seconds
    while _tagged_processes(tag) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _tagged_processes(tag)


def _start_ddp(*args, tag, stderr=subprocess.DEVNULL):
    env = dict(os.environ, CARDBENCH_TEST_TAG=tag)
    return subprocess.Popen([sys.executable, "-m", "workloads.resnet50", *TINY, *args, "--gpus", "2"], env=env,
                            stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)


def _until_first_step(proc):
    events = []
    for line in proc.stdout:
        events.append(protocol.parse_line(line))
        if events[-1].kind == "step":
            break
    assert events[-1].kind == "step"
    return events


def test_two_process_gloo_data_parallel_run_leaves_no_process():
    tag = f"ddp-ok-{os.getpid()}"
    proc = _start_ddp("--steps", "2", tag=tag, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=240)
    log = err.decode()
    assert proc.returncode == 0, log
    events = [protocol.parse_line(line) for line in out.splitlines()]
    assert [e.kind for e in events].count("start") == 1 and events[-1].status == "ok"  # rank 0 only
    assert events[0].config["world_size"] == 2
    steps = of(events, "step")
    assert [s.step for s in steps] == [1, 2]
    for s in steps:  # global throughput: both processes' images
        assert s.throughput == pytest.approx(4 / s.step_s, rel=1e-6)
    metrics = result(events)
    assert metrics["world_size"] == 2 and metrics["global_batch_size"] == 4
    assert "launching 2 processes" in log and "torch.distributed.run" in log
    assert _wait_until_gone(tag) == []


def test_stopping_the_data_parallel_launcher_stops_its_workers():
    tag = f"ddp-stop-{os.getpid()}"
    proc = _start_ddp(tag=tag)
    try:
        events = _until_first_step(proc)
        assert len(_tagged_processes(tag)) >= 4  # launcher, torchrun, two ranks
        os.kill(proc.pid, signal.SIGTERM)  # the launcher alone, not its group
        rest, _ = proc.communicate(timeout=60)
        events += [protocol.parse_line(line) for line in rest.splitlines()]
        assert events[-1].kind == "end" and events[-1].status == "stopped"
        assert _wait_until_gone(tag) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def test_killing_the_launchers_group_takes_the_ranks_too():
    # what the runner does after its grace period, and the workbench's last resort at exit
    tag = f"ddp-kill-{os.getpid()}"
    proc = _start_ddp(tag=tag)
    try:
        _until_first_step(proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert _wait_until_gone(tag) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def test_a_rank_dies_with_its_parent(tmp_path):
    # the mechanism behind the test above, without gloo's own error path that also ends ranks on the CPU
    pid_file = tmp_path / "rank.pid"
    rank = ("import os, sys, time\n"
            "from workloads.child.data_parallel import die_with_parent\n"
            "die_with_parent()\n"
            f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
            "time.sleep(600)\n")
    parent = ("import subprocess, sys, time\n"
              f"subprocess.Popen([sys.executable, '-c', {rank!r}], start_new_session=True)\n"
              "time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", parent])
    try:
        deadline = time.monotonic() + 30
        # the file exists a moment before the pid is in it
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            state = open(f"/proc/{child}/stat", "rb").read().rsplit(b")", 1)[1].split()[0]
            if state == b"Z":
                break
            time.sleep(0.05)
        else:
            os.kill(child, signal.SIGKILL)
            pytest.fail("the rank outlived its parent")
    finally:
        if proc.poll() is None:
            proc.kill()
