"""`cardbench run` refused for bad input (exit 2) leaves no run directory, whether the arguments decided it before the
run (a device type torch has no name for) or the workload's child found it once it ran (a device not on this machine,
a batch above the free memory); a run that measured anything keeps its directory, whatever its exit."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paths import CHILDREN
from tui.detach import DETACHED_ENV
from tui.store import load_run

# where /dev/nvidiactl exists a cuda:0 may be present: the refusal of an absent one cannot be shown there
_CUDA_HERE = Path("/dev/nvidiactl").exists()


def _cardbench(*args, module="tui.cli", **env_vars):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CHILDREN), os.environ["PYTHONPATH"]]), **env_vars}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=env, timeout=600)


@pytest.mark.parametrize("args, said", [
    pytest.param(["llm", "--model", "tiny", "--device", "cuda:0"],
                 "cardbench: error: device 'cuda:0' is not available on this machine",
                 marks=pytest.mark.skipif(_CUDA_HERE, reason="a cuda device may be here")),
    (["llm", "--model", "tiny", "--device", "foo"], "cardbench run llm: --device 'foo' is not a torch device"),
    (["generate", "--batch-size", "100000"], "at batch 100000 x 288 positions needs about"),
    # the scan's worker sends its refusal over a pipe as JSON: its catalogue hint once killed it (exit 1)
    (["opscan", "--device", "npu", "--sources", "gpt2-decode"], "device type npu needs torch_npu"),
])
def test_a_refused_run_is_one_line_exit_2_and_leaves_no_run_directory(args, said, tmp_path):
    runs = tmp_path / "runs"
    out = _cardbench("run", *args, "--runs-dir", str(runs))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and said in out.stderr and "Traceback" not in out.stderr
    assert not runs.exists() or list(runs.iterdir()) == []


def test_a_device_type_torch_has_no_name_for_is_refused_before_the_workload_starts(tmp_path):
    # the stand-in would take any --device: the refusal is the command's, before a run is recorded
    out = _cardbench("run", "tick", "--steps", "1", "--device", "gpu0", "--runs-dir", str(tmp_path / "runs"),
                     module="tick_cli")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == ("cardbench run tick: --device 'gpu0' is not a torch device "
                          "(auto, cpu, cuda, cuda:1, npu:0, ...)\n")
    assert not (tmp_path / "runs").exists()


def test_a_run_refused_after_its_start_with_nothing_measured_is_removed(tmp_path):
    runs = tmp_path / "runs"
    out = _cardbench("run", "tick", "--refuse-after", "0", "--runs-dir", str(runs), module="tick_cli")
    assert out.returncode == 2
    assert out.stderr == "cardbench: error: tick refuses to go past step 0 (hint: a stand-in's refusal)\n"
    assert "nothing was measured" in out.stdout.splitlines()[-1]
    assert list(runs.iterdir()) == []


def test_a_run_that_measured_steps_and_then_exited_2_keeps_its_directory(tmp_path):
    runs = tmp_path / "runs"
    out = _cardbench("run", "tick", "--refuse-after", "2", "--delay", "0", "--runs-dir", str(runs),
                     module="tick_cli")
    assert out.returncode == 2
    assert "nothing was measured" not in out.stdout
    (run,) = runs.iterdir()
    record = load_run(run)
    assert [s.step for s in record.steps] == [1, 2]
    assert record.end is not None and record.end.exit_code == 2


def test_a_detached_run_refused_after_its_start_keeps_its_directory(tmp_path):
    # the command `cardbench run --detach` (and the workbench's detach) starts: it was said to be under way at that
    # path, and the workbench lists it there, so its refusal stays on disk to be seen
    runs = tmp_path / "runs"
    out = _cardbench("run", "tick", "--refuse-after", "0", "--runs-dir", str(runs), module="tick_cli",
                     **{DETACHED_ENV: "1"})
    assert out.returncode == 2
    (run,) = runs.iterdir()
    record = load_run(run)
    assert record.status == "failed" and record.end.exit_code == 2 and record.steps == []
