"""Issue 16 item 3: a runs dir that stops taking writes mid-run (disk full, read-only, unwritable).

The run goes on and its progress keeps coming; one line names the directory and the cause; what
reached the disk before the fault is a readable run; `cardbench run` exits 1 and `--export-report`
says which workload lost its record and what the bundle holds.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from contextlib import aclosing

import pytest

from app_fakes import child_factory
from paths import REPO, TESTS
from store_faults import fail_run_writes
from tui.store import RunStore, RunStoreError, load_run
from tui.session import STORE_FAULT, RunSession

STEPS = 12


@pytest.fixture
def faults():
    undo = []
    yield lambda after, code=errno.ENOSPC: undo.append(fail_run_writes(after, code))
    for u in undo:
        u()


@pytest.mark.parametrize("code, cause", [(errno.ENOSPC, "No space left on device"),
                                         (errno.EROFS, "Read-only file system"),
                                         (errno.EACCES, "Permission denied"),
                                         (errno.EPERM, "Operation not permitted")])
async def test_the_run_goes_on_and_one_warning_names_the_dir_and_the_cause(tmp_path, faults, code, cause):
    session = RunSession(RunStore(tmp_path / "runs"), runner_factory=child_factory("steady.py", str(STEPS), "0.01"))
    faults(9, code)  # config.json, then start + 3 steps reach the disk (an event and its log line each), then the disk fails
    run = session.start("resnet50", [])
    async with aclosing(session.events()) as events:
        seen = [e async for e in events]
    # every event still reached the caller, in order, ending with the workload's own ok
    assert [e.step for e in seen if e.kind == "step"] == list(range(1, STEPS + 1))
    assert seen[-1].kind == "end" and seen[-1].status == "ok" and any(e.kind == "result" for e in seen)
    (warning,) = [e for e in seen if e.kind == "warning"]
    assert warning.code == STORE_FAULT
    assert f"run dir {run.path} could not be written" in warning.message and cause in warning.message
    assert "the run's progress after" in warning.message and "UTC is not on disk" in warning.message
    # what reached the disk before the fault is a run that loads, and it stops there
    record = load_run(run.path)
    assert [e.step for e in record.steps] == [1, 2, 3] and record.status == "incomplete"
    assert run.fault.cause == cause and run.lost_events == len(seen) - 1 - 4  # all but start + 3 steps
    assert record.config["workload"] == "resnet50"


async def test_a_fault_in_the_samplers_thread_is_said_too(tmp_path, faults):
    session = RunSession(RunStore(tmp_path / "runs"), runner_factory=child_factory("steady.py", "3", "0.05"))
    faults(1, errno.ENOSPC)  # config.json, then nothing
    session.start("resnet50", [])
    session.record_telemetry({"t": 1.0, "host": {}})  # the sampler's thread: must not raise there
    async with aclosing(session.events()) as events:
        seen = [e async for e in events]
    assert seen[0].kind == "warning" and "telemetry.jsonl: No space left on device" in seen[0].message
    assert seen[-1].status == "ok"


def _cardbench_with_full_disk(runs, *args, after=9, stdout=subprocess.PIPE):
    """`cardbench run` in a child whose run store fails after ``after`` writes; the workload a stand-in."""
    code = ("import sys; sys.path[:0] = [sys.argv.pop(1)]\n"
            "import store_faults, app_fakes, tui.session\n"
            f"store_faults.fail_run_writes({after})\n"
            f"tui.session.default_runner_factory = app_fakes.child_factory('steady.py', '{STEPS}', '0.01')\n"
            "from tui.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, str(TESTS), "run", "resnet50", "--runs-dir", str(runs),
                           *args], stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def test_cardbench_run_keeps_showing_progress_says_one_line_and_exits_1(tmp_path):
    runs = tmp_path / "runs"
    out = _cardbench_with_full_disk(runs, "--json")
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    (run,) = runs.iterdir()
    said = [line for line in out.stderr.splitlines() if "could not be written" in line]
    assert len(said) == 1 and said[0].startswith(f"cardbench run: run dir {run} could not be written")
    assert "No space left on device" in said[0]
    assert f"step {STEPS}" in out.stderr  # the progress after the fault still reached the terminal
    result = json.loads(out.stdout)  # the result too, saying the record is incomplete
    assert result["status"] == "ok" and result["record"] == "incomplete" and result["images_per_s"] > 0
    assert load_run(run).status == "incomplete"


def test_a_json_result_that_cannot_reach_stdout_is_exit_1_and_one_line_naming_where_it_is(tmp_path):
    runs = tmp_path / "runs"
    with open("/dev/full", "w") as full:  # every write: No space left on device
        out = _cardbench_with_full_disk(runs, "--json", after=10**6, stdout=full)
    assert out.returncode == 1
    (run,) = runs.iterdir()
    (said,) = [line for line in out.stderr.splitlines() if "could not be written" in line]
    assert said == ("cardbench run: the result could not be written to stdout (No space left on device); "
                    f"it is in {run / 'events.jsonl'}")
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr
    assert load_run(run).result.metrics["images_per_s"] > 0


def test_cardbench_run_without_a_fault_is_still_exit_0(tmp_path):
    out = _cardbench_with_full_disk(tmp_path / "runs", "--json", after=10**6)
    assert out.returncode == 0, out.stderr
    assert "record" not in json.loads(out.stdout)


def test_a_run_that_cannot_be_created_leaves_no_directory(tmp_path, faults):
    faults(0, errno.ENOSPC)
    store = RunStore(tmp_path / "runs")
    with pytest.raises(RunStoreError, match=f"cannot create a run in {store.root}: No space left on device"):
        store.create("resnet50", [])
    assert list(store.root.iterdir()) == []


def test_export_report_says_which_workload_lost_its_record_and_what_the_bundle_holds(tmp_path, monkeypatch, capsys,
                                                                                     faults):
    """The disk fills during the first workload: it runs to its end, the second cannot be recorded and is said,
    the bundle is still written from what is on disk, its notes and stderr say what it holds, exit 1."""
    from tui import headless
    from tui.cli import build_parser
    from workloads.runner import Runner

    steady = [sys.executable, str(TESTS / "children" / "steady.py"), str(STEPS), "0.01"]
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(steady, **kw)))
    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    built = {}
    monkeypatch.setattr(headless, "build_bundle", lambda run_dirs, output, progress, doctor, note, notes, sample,
                        options: built.update(run_dirs=list(run_dirs), notes=list(notes)) or output / "b.zip")
    args = build_parser().parse_args(["--runs-dir", str(tmp_path / "runs"), "--export-report",
                                      "-o", str(tmp_path / "out")])
    # past the start check: config.json, doctor.json (not the store's), then start + 3 steps; then the disk is full
    real_check = RunStore.check
    monkeypatch.setattr(RunStore, "check", lambda self: (real_check(self), faults(9))[0])
    assert headless.export_report(args) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    (run,) = built["run_dirs"]  # the first workload's run, as far as it reached the disk
    assert [e.step for e in load_run(run).steps] == [1, 2, 3]
    # during the suite: the first run's fault, said once, and the second workload not recorded, said
    assert err.count(f"resnet50: run dir {run} could not be written (events.jsonl: No space left on device)") == 1
    assert "generate: not run: cannot create a run in" in err
    assert "resnet50: ok, 112 images/s" in err  # its result, after the fault, still reached the terminal
    # the report's notes: which workload's record ends where, what it showed live, and who did not run
    (lost,) = [n for n in built["notes"] if str(n).startswith("resnet50: its run directory stopped taking writes")]
    assert "No space left on device" in str(lost) and "As seen live (not on disk): resnet50: ok" in str(lost)
    assert "不再能写入" in lost("zh") and "No space left on device" in lost("zh")  # --lang zh says it too
    assert any(str(n).startswith("generate did not run: cannot create a run in") for n in built["notes"])
    assert not any("generate did not run (the suite was stopped" in str(n) for n in built["notes"])
    # at the end, on stderr: what the bundle holds of it
    assert "resnet50's record is incomplete" in err and "the bundle holds its progress up to" in err
