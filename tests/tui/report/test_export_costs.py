"""Issue 16 item 6, what an export costs besides the runs: collect_env (seconds of fixed cost) runs in the
background while the export draws the runs, and its answer reaches env.json exactly as when it ran in the
foreground; the runs read are kept out of the garbage collector's walks while the bundle is made, and the
heap is as it was when the export ends, however it ends."""

import gc
import json
import threading
import zipfile
from pathlib import Path

import pytest

from tui.report import envinfo
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol

TEXT = "PyTorch version: 2.14.1\nOS: Linux\n\nCPU:\nArchitecture: x86_64\n"
DOCTOR = [{"name": "python", "status": "ok", "detail": "test"}]


def _run(root: Path) -> Path:
    run = RunStore(root).create("resnet50", ["--steps", "2"])
    run.append(protocol.Start(t=1.0, workload="resnet50", device="cpu", config={"batch_size": 4}))
    for i in (1, 2):
        run.append(protocol.Step(t=1.0 + i, step=i, epoch=1, loss=1.0 / i, throughput=3.0, unit="images/s"))
    run.append(protocol.End(t=4.0, status="ok", exit_code=0))
    run.close()
    return run.path


def _env_json(zip_path: Path) -> dict:
    with zipfile.ZipFile(zip_path) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith("/env.json")]
        return json.loads(zf.read(name))


def test_the_job_gives_env_the_same_fields_as_running_collect_env_in_place(monkeypatch):
    monkeypatch.setattr(envinfo, "run_collect_env",
                        lambda **kw: envinfo.CollectEnv(TEXT, envinfo.parse_collect_env(TEXT), 0.25))
    in_place = envinfo.gather(DOCTOR, {"CUDA_VISIBLE_DEVICES": "0"}, doctor_note="kept")
    job = envinfo.CollectEnvJob()
    from_job = envinfo.gather(DOCTOR, {"CUDA_VISIBLE_DEVICES": "0"}, doctor_note="kept", collect=job)
    assert job.done()
    assert from_job.to_dict() == in_place.to_dict()
    assert from_job.collect_env.fields["CPU"] == ["Architecture: x86_64"]


def test_a_collect_env_that_raises_becomes_a_note_not_a_lost_report(monkeypatch):
    def broken(**kw):
        raise OSError("no such interpreter")

    monkeypatch.setattr(envinfo, "run_collect_env", broken)
    got = envinfo.CollectEnvJob().result()
    assert got.text is None and got.fields == {}
    assert got.note == "could not run collect_env: OSError: no such interpreter"


@pytest.mark.timeout(60)
def test_collect_env_runs_while_the_screen_is_drawn(monkeypatch, tmp_path):
    """collect_env answers only once the screen is drawn: in the foreground (before the screenshot) it
    would wait its 10 s out and answer with the timeout; in the background it has the whole text."""
    drawn = threading.Event()

    def collect_env(**kw):
        if not drawn.wait(10):
            return envinfo.CollectEnv(None, {}, None, "waited for the screen in vain")
        return envinfo.CollectEnv(TEXT, envinfo.parse_collect_env(TEXT), 0.5)

    def screenshot(records, sample):
        drawn.set()
        return None, "no screen in this test"

    monkeypatch.setattr(envinfo, "run_collect_env", collect_env)
    path = export_bundle(ExportInputs([_run(tmp_path / "runs")], tmp_path / "out", screenshot=screenshot,
                                      doctor_checks=DOCTOR,
                                      environ={}))
    env = _env_json(path)
    assert env["collect_env"]["note"] is None
    assert env["collect_env"]["text"] == TEXT
    assert env["collect_env"]["fields"]["PyTorch version"] == "2.14.1"


@pytest.fixture
def stub_collect_env(monkeypatch):
    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv(TEXT, {}, 0.1))


def test_the_runs_read_are_frozen_while_the_bundle_is_made_and_thawed_after(stub_collect_env, tmp_path):
    assert gc.get_freeze_count() == 0
    frozen_while_drawing = []

    def screenshot(records, sample):
        frozen_while_drawing.append(gc.get_freeze_count())
        return None, "no screen in this test"

    export_bundle(ExportInputs([_run(tmp_path / "runs")], tmp_path / "out", screenshot=screenshot,
                               doctor_checks=DOCTOR, environ={}))
    assert frozen_while_drawing[0] > 0
    assert gc.get_freeze_count() == 0


def test_an_export_cut_short_thaws_the_heap_too(stub_collect_env, tmp_path):
    def interrupt_at_charts(stage):
        if stage == "charts":
            raise KeyboardInterrupt  # Ctrl+C there: a progress display's other errors are swallowed

    with pytest.raises(KeyboardInterrupt):
        export_bundle(ExportInputs([_run(tmp_path / "runs")], tmp_path / "out", doctor_checks=DOCTOR, environ={},
                                   screenshot=lambda records, sample: (None, "no screen"),
                                   progress=interrupt_at_charts))
    assert gc.get_freeze_count() == 0


def test_a_callers_own_frozen_heap_is_left_frozen(stub_collect_env, tmp_path):
    gc.freeze()
    try:
        export_bundle(ExportInputs([_run(tmp_path / "runs")], tmp_path / "out", doctor_checks=DOCTOR, environ={},
                                   screenshot=lambda records, sample: (None, "no screen")))
        assert gc.get_freeze_count() > 0  # still frozen (fewer: some of what was frozen has been freed)
    finally:
        gc.unfreeze()


def test_collect_env_waits_for_the_doctor_that_runs_at_export(monkeypatch, tmp_path):
    """The doctor's probe times the CUDA initialisation the report states: collect_env (torch in a child,
    nvidia-smi) must not run beside it."""
    import tui.doctor

    doctor_done = threading.Event()
    started_after_doctor = []

    def run_checks():
        doctor_done.set()
        return DOCTOR

    def collect_env(**kw):
        started_after_doctor.append(doctor_done.is_set())
        return envinfo.CollectEnv(TEXT, {}, 0.1)

    monkeypatch.setattr(tui.doctor, "run_checks", run_checks)
    monkeypatch.setattr(envinfo, "run_collect_env", collect_env)
    export_bundle(ExportInputs([_run(tmp_path / "runs")], tmp_path / "out", environ={},
                               screenshot=lambda records, sample: (None, "no screen")))
    assert started_after_doctor == [True]


def test_the_doctor_starts_once_the_runs_are_read_and_the_devices_detected(monkeypatch, tmp_path):
    """A long run is read by two decoding processes: the doctor's probe (a torch import) beside them waited for a
    core. It starts after the reading and the device detection (one NVML user at a time), and collect_env after
    it; its checks still reach the report."""
    import tui.doctor
    import tui.store
    import tui.telemetry

    order: list[str] = []
    load_run = tui.store.load_run

    def reading(path):
        record = load_run(path)
        order.append("read")
        return record

    def devices():
        order.append("devices")
        raise RuntimeError("no devices in this test")

    def run_checks():
        order.append("doctor")
        return DOCTOR

    def collect_env(**kw):
        order.append("collect_env")
        return envinfo.CollectEnv(TEXT, {}, 0.1)

    monkeypatch.setattr(tui.store, "load_run", reading)
    monkeypatch.setattr(tui.telemetry, "collect_once", devices)
    monkeypatch.setattr(tui.doctor, "run_checks", run_checks)
    monkeypatch.setattr(envinfo, "run_collect_env", collect_env)
    path = export_bundle(ExportInputs([_run(tmp_path / "runs")], tmp_path / "out", environ={},
                                      screenshot=lambda records, sample: (None, "no screen")))
    assert order == ["read", "devices", "doctor", "collect_env"]
    assert [(c["name"], c["status"]) for c in _env_json(path)["doctor"]] == [("python", "ok")]


def test_an_export_that_ends_early_leaves_no_collect_env_behind(tmp_path):
    """Ctrl+C or SIGTERM while collect_env runs in the background: the command exits, and its child goes
    with it (it runs in its own process group, which run_bounded kills when the interpreter exits)."""
    import os
    import subprocess
    import sys
    import time

    pid_file = tmp_path / "collect_env.pid"
    fake_python = tmp_path / "python"
    fake_python.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 60\n")
    fake_python.chmod(0o755)
    script = f"""
import sys, time
from tui.report import envinfo
real = envinfo.run_collect_env
envinfo.run_collect_env = lambda **kw: real(python={str(fake_python)!r}, **kw)
job = envinfo.CollectEnvJob()
for _ in range(200):
    try:
        if open({str(pid_file)!r}).read().strip():
            break
    except OSError:
        pass
    time.sleep(0.05)
raise KeyboardInterrupt
"""
    repo = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, timeout=60)
    assert "KeyboardInterrupt" in done.stderr
    pid = int(pid_file.read_text())
    for _ in range(100):
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                break  # killed, not yet reaped by whoever adopted it
        except OSError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail("collect_env outlived the export")
