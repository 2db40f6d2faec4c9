"""A workspace to back up (a runs dir whose run names a checkpoint folder, a report bundle) and a real rclone
WebDAV remote served on 127.0.0.1 with a throwaway rclone config in tmp."""

import json
import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui import cli
from tui.backup.rclone import binary


@dataclass
class Workspace:
    root: Path
    runs: Path
    checkpoint: Path
    report: Path

    def argv(self, *more: str) -> list[str]:
        return ["backup", *more, "--runs-dir", str(self.runs)]


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    root = tmp_path / "work"
    run = root / "cardbench-runs" / "20261203-070000-resnet50"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"workload": "resnet50", "created": 1.0,
                                                 "args": ["--epochs", "3", "--checkpoint", "ckpt"]}))
    (run / "events.jsonl").write_text('{"type": "start"}\n')
    (run / "run.log").write_text("step 1/3\n")
    checkpoint = root / "ckpt" / "resnet50-last.pt"
    checkpoint.parent.mkdir()
    checkpoint.write_bytes(os.urandom(300_000))
    (root / "ckpt" / "resnet50.lock").write_text("")                 # the run's lock: not a checkpoint
    (root / "ckpt" / "resnet50-last.pt.123.partial").write_bytes(b"half")   # a save in flight: not one either
    report = root / "reports" / "cardbench-report-host-20261203T070000Z.zip"
    report.parent.mkdir()
    report.write_bytes(b"PK" + os.urandom(1000))
    monkeypatch.chdir(root)
    monkeypatch.setenv("CARDBENCH_CONFIG", str(tmp_path / "config.json"))
    monkeypatch.setitem(cli.COMMAND_MODULES, "backup", "tui.cli.backup")
    return Workspace(root, root / "cardbench-runs", checkpoint, report)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(argv: list[str], port: int, what: str):
    """Start `rclone serve ...` and wait until it listens on 127.0.0.1:port; the process, to stop after."""
    server = subprocess.Popen([binary(), "serve", *argv, "--addr", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"rclone serve {what} did not start")
            time.sleep(0.1)


@pytest.fixture
def webdav(tmp_path, monkeypatch):
    """(remote name, the folder the server serves): a real rclone remote on 127.0.0.1."""
    served = tmp_path / "served"
    served.mkdir()
    port = _free_port()
    config = tmp_path / "rclone.conf"
    config.write_text(f"[dav]\ntype = webdav\nurl = http://127.0.0.1:{port}\nvendor = other\n")
    monkeypatch.setenv("RCLONE_CONFIG", str(config))
    server = _serve(["webdav", str(served)], port, "webdav")
    try:
        yield "dav", served
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def s3(tmp_path, monkeypatch):
    """(remote name, the folder the server serves): object storage as OSS, COS and OBS speak it (S3), served by
    `rclone serve s3` on 127.0.0.1 with a key pair; each top folder of the served one is a bucket."""
    served = tmp_path / "served"
    (served / "bucket").mkdir(parents=True)
    port = _free_port()
    config = tmp_path / "rclone.conf"
    config.write_text(f"[obj]\ntype = s3\nprovider = Rclone\nendpoint = http://127.0.0.1:{port}\n"
                      "access_key_id = trialkey\nsecret_access_key = trialsecret\n")
    monkeypatch.setenv("RCLONE_CONFIG", str(config))
    server = _serve(["s3", str(served), "--auth-key", "trialkey,trialsecret"], port, "s3")
    try:
        yield "obj", served
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(params=["webdav", "s3"])
def remote(request):
    """Each kind of remote the trial's users back up to: a WebDAV server and S3-compatible object storage."""
    return request.getfixturevalue(request.param)
