"""A cold start's stamps as its figures: each phase from the end of the one before, N/A where there was none, and a
child that dies keeps what it stamped (a stand-in child module, no torch: a second)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from workloads.cold_start import split
from workloads.cold_start.page_cache import ReadState
from workloads.cold_start.run import SCRATCH_PREFIX, ColdStart, sweep_stale
from workloads.cold_start.spawn import Stamps, run_child
from workloads.errors import WorkloadError

COLD = ReadState("cold", "fadvise", 0.0)


def test_each_phase_runs_from_the_end_of_the_one_before_and_they_add_up_to_the_total():
    stamps = Stamps(spawned=100.0, at={"python": 100.1, "imported": 102.0, "device": 102.5, "read": 103.0,
                                       "built": 104.0, "compiled": 110.0, "first": 110.25},
                    notes={"compile_how": "decode_compiled"})
    f = split.figures(stamps, COLD, 1 << 20)
    assert f["cold_start_import_s"] == pytest.approx(2.0) and f["cold_start_device_s"] == pytest.approx(0.5)
    assert f["cold_start_read_s"] == pytest.approx(0.5) and f["cold_start_build_s"] == pytest.approx(1.0)
    assert f["cold_start_compile_s"] == pytest.approx(6.0) and f["cold_start_first_token_s"] == pytest.approx(0.25)
    assert f["cold_start_s"] == pytest.approx(10.25) == sum(f[k] for k, _ in split.PHASES)
    assert (f["cold_start_read_state"], f["cold_start_read_bytes"]) == ("cold", 1 << 20)
    assert f["cold_start_read_reason"] == ("page cache dropped (posix_fadvise); 0.0 % of the bytes resident before the "
                                           "read (mincore)") and f["cold_start_read_resident"] == 0.0
    assert f["cold_start_compile_note"] == "torch.compile of the decode step, its first call"
    assert split.interpreter_s(stamps) == pytest.approx(0.1)
    assert set(f) == set(split.KEYS) - {"cold_start_read_refused", "cold_start_compile_error"}   # none here


def test_without_a_compile_the_first_token_runs_from_the_build_and_the_compile_is_na():
    stamps = Stamps(spawned=0.0, at={"imported": 2.0, "device": 2.1, "read": 2.4, "built": 3.0, "first": 3.5},
                    notes={"compile_how": "off"})
    f = split.figures(stamps, COLD, 10)
    assert f["cold_start_compile_s"] is None and f["cold_start_first_token_s"] == pytest.approx(0.5)
    assert f["cold_start_compile_note"] == "N/A: no --compile (or --cuda-graphs) asked for"
    assert f["cold_start_s"] == pytest.approx(3.5)


_DYING = """
    import json, os, signal, sys, time
    request = json.loads(sys.argv[1])
    for phase in ("imported", "device"):
        print(json.dumps({"phase": phase, "at": time.time()}), flush=True)
    print("a line of its own, not JSON", flush=True)
    if request["role"] == "measure":
        os.kill(os.getpid(), signal.SIGKILL)   # as the kernel's OOM killer would, mid-read
    print(json.dumps({"note": {"device": "cpu", "device_name": "cpu (stand-in)", "versions": {}, "dtype": "fp32"}}))
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    (tmp_path / "stand_in_child.py").write_text(textwrap.dedent(_DYING))
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ['PYTHONPATH']}")   # the child finds it
    return "stand_in_child"


def test_a_child_that_dies_is_one_line_and_keeps_the_phases_it_stamped(stand_in, tmp_path, capsys):
    weights = tmp_path / "ckpt"
    weights.mkdir()
    (weights / "model.safetensors").write_bytes(b"\0" * 4096)
    with ColdStart(stand_in, {"model": "tiny"}, weights) as cold:
        assert cold.prepare()["device_name"] == "cpu (stand-in)"
        figures = cold.measure()
    assert cold.error == "the child process ended (killed by SIGKILL) after its device phase"
    assert figures["cold_start_import_s"] > 0 and figures["cold_start_device_s"] >= 0
    assert figures["cold_start_read_s"] is None and figures["cold_start_s"] is None
    assert figures["cold_start_read_bytes"] == 4096
    assert "a line of its own, not JSON" in capsys.readouterr().err   # passed on to run.log


def test_the_child_gets_the_request_and_this_process_as_its_parent(stand_in):
    stamps = run_child(stand_in, {"role": "prepare"})
    assert stamps.error is None and stamps.notes["dtype"] == "fp32" and stamps.spawned < stamps.at["imported"]


def test_a_preparing_child_that_fails_is_one_workload_error(tmp_path, monkeypatch):
    (tmp_path / "failing_child.py").write_text("import json\nprint(json.dumps({'error': 'unknown device cuda:7'}))\n"
                                               "raise SystemExit(1)\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ['PYTHONPATH']}")

    with ColdStart("failing_child", {"model": "tiny"}, None) as cold, pytest.raises(WorkloadError) as raised:
        cold.prepare()
    assert raised.value.message == "cold start: preparing failed: unknown device cuda:7"
    scratch = cold.scratch
    assert scratch is not None and not scratch.exists()   # the scratch directory goes with the cold start
    assert json.dumps(raised.value.message).count("\\n") == 0


def test_a_compile_that_failed_is_timed_and_says_its_error():
    stamps = Stamps(spawned=0.0, at={"imported": 1.0, "device": 1.0, "read": 1.0, "built": 1.0, "compiled": 4.0,
                                     "first": 4.5}, notes={"compile_how": "failed", "compile_error": "BackendCompilerFailed: no cc"})
    f = split.figures(stamps, COLD, 10)
    assert f["cold_start_compile_s"] == pytest.approx(3.0)
    assert f["cold_start_compile_note"] == "failed (BackendCompilerFailed: no cc); a run goes on eager"
    assert f["cold_start_compile_error"] == "BackendCompilerFailed: no cc"


def test_a_killed_cold_starts_scratch_weights_are_swept_and_a_live_ones_kept(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / f"{SCRATCH_PREFIX}{gone.stdout.strip()}-abc"
    live = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-def"
    other = tmp_path / "cardbench-cold-startle"   # not one of ours by its name
    for d in (dead, live, other):
        d.mkdir()
        (d / "preset_weights.pt").write_bytes(b"w")
    assert sweep_stale(tmp_path) == [dead]
    assert not dead.exists() and live.exists() and other.exists()
