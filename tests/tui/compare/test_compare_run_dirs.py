"""`cardbench compare` on run directories other people send, and its temporary folder: a run's files are read as a
bundle's members are (regular files only, never through a link, each under its cap), what compare does not need
(telemetry) is not opened, and the temporary folder goes on every way out (issue 21, 2)."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from compare_runs import bundle, cardbench_compare, one_line_exit_2, resnet_like
from tui.store import RunStore

FAST = [1000.0, 980.0, 1020.0, 1000.0, 990.0, 1010.0]


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


def test_a_fifo_in_place_of_events_jsonl_is_refused_unopened(store):
    good, odd = resnet_like(store, FAST), resnet_like(store, FAST)
    (odd / "events.jsonl").unlink()
    os.mkfifo(odd / "events.jsonl")
    done = cardbench_compare(good, odd)   # it blocked in open() for ever
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.strip().endswith(f"{odd}: events.jsonl is a FIFO, not a regular file")


def test_files_compare_does_not_need_are_not_opened(store):
    """telemetry.jsonl (and its rotated segments) hold nothing compare shows: a FIFO there blocked the load."""
    good, odd = resnet_like(store, FAST), resnet_like(store, FAST)
    os.mkfifo(odd / "telemetry.jsonl")
    done = cardbench_compare(good, odd, "--json")
    assert done.returncode == 0, done.stderr


def test_a_link_inside_a_run_directory_is_not_followed(store, tmp_path):
    good, odd = resnet_like(store, FAST), resnet_like(store, FAST)
    outside = tmp_path / "elsewhere.jsonl"
    shutil.move(odd / "events.jsonl", outside)
    (odd / "events.jsonl").symlink_to(outside)   # as well /etc/shadow, or /dev/zero
    done = cardbench_compare(good, odd)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.strip().endswith(f"{odd}: events.jsonl is a link; compare follows no link inside a run "
                                        "directory")


def test_a_run_directory_s_events_are_capped_as_a_bundle_s_are(compare, store, monkeypatch):
    from tui.compare import bundle_reader

    monkeypatch.setattr(bundle_reader, "CAP_EVENTS", bundle_reader.Cap(2048, "a run's events.jsonl"))
    good, odd = resnet_like(store, FAST), resnet_like(store, FAST)
    with open(odd / "events.jsonl", "a") as events:
        events.write("\n" * 4096)
    size = (odd / "events.jsonl").stat().st_size
    code, out, err = compare(good, odd)
    one_line_exit_2(code, out, err, f"{odd}: events.jsonl is {size:,} bytes, over the cap of 2,048 bytes on a run's "
                                    "events.jsonl")


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The temporary directory compare unpacks into, empty before the test."""
    path = tmp_path / "tmp"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


@pytest.mark.parametrize("kind", ["bundle", "run"])
def test_ctrl_c_while_a_run_is_rebuilt_leaves_no_temporary_file(compare, store, tmp_path, scratch, monkeypatch, kind):
    from tui.compare import load

    run = resnet_like(store, FAST)
    sent = bundle(tmp_path / "sent.zip", run) if kind == "bundle" else run

    def interrupted(path):
        assert list(scratch.iterdir())   # the run's files are there, about to be read
        raise KeyboardInterrupt

    monkeypatch.setattr(load, "load_run", interrupted)
    code, out, err = compare(sent, run)
    assert code == 130 and "interrupted" in err
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_kill_or_a_closed_terminal_while_a_bundle_is_unpacked_leaves_no_temporary_file(store, tmp_path, scratch,
                                                                                         signum):
    """SIGTERM and SIGHUP (the SSH session closed) ended the process at once, and the unpacked bundle stayed."""
    run = resnet_like(store, FAST)
    sent = bundle(tmp_path / "sent.zip", run)
    child = (f"import os, sys, tempfile, time; tempfile.tempdir = {str(scratch)!r}\n"
             "from tui.compare import load\n"
             f"def killed(path): os.kill(os.getpid(), {int(signum)}); time.sleep(30)\n"
             "load.load_run = killed\n"
             "from tui import cli\n"
             f"sys.exit(cli.main(['compare', {str(run)!r}, {str(sent)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=30)
    assert done.returncode == 130 and "interrupted" in done.stderr, done.stderr
    assert list(scratch.iterdir()) == []
