"""Issue 37 item 4: a data set's file names reach the terminal and run.log without the sequences a terminal
obeys (ESC ] 0 ; retitles the window, ESC [ 2 J clears it), by the rule every string from outside goes through
(`workloads.safe_text.file_name`)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from paths import REPO

pytest.importorskip("torchvision")
from PIL import Image

from workloads.dataio import images, survey

RETITLE = "bad\x1b]0;pwned\x07.jpg"
CLEAR = "clr\x1b[2J.jpg"
OBEYED = ("\x1b", "\x07", "\x9b")


def _data(root) -> None:
    root.mkdir()
    for i in range(3):
        out = io.BytesIO()
        Image.new("RGB", (32, 24), (20 * i, 120, 200)).save(out, "JPEG")
        (root / f"{i}.jpg").write_bytes(out.getvalue())
    for name in (RETITLE, CLEAR):   # a JPEG's magic, then nothing a decoder takes: skipped as truncated
        (root / name).write_bytes(b"\xff\xd8\xff not an image")
    os.symlink(root / "gone\x1b]52;c;ZWNobyBoaQ==\x07", root / "link\x1b[2J.jpg")   # a broken link: unreadable


def test_skipped_names_are_defused_on_the_terminal_and_in_run_log(tmp_path):
    data = tmp_path / "data"
    _data(data)
    runs = tmp_path / "runs"
    env = {**os.environ, "CARDBENCH_RUNS_DIR": str(runs)}
    env.pop("CARDBENCH_RUN_DIR", None)
    done = subprocess.run([sys.executable, "-m", "tui.cli", "run", "dataio", "--data", str(data), "--seconds", "0.05",
                           "--max-workers", "1", "--batch-size", "4", "--device", "cpu", "--consumer-rate", "2",
                           "--runs-dir", str(runs)], cwd=REPO, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    [run] = list(runs.iterdir())
    said = {"stdout": done.stdout, "stderr": done.stderr, "run.log": (run / "run.log").read_text(),
            # its JSON escapes ESC as \\u001b: what a reader of it gets back is checked
            "events.jsonl": json.dumps([json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()],
                                       ensure_ascii=False)}
    for where, text in said.items():
        assert not [c for c in OBEYED if c in text], f"{where} passes a terminal control: {text!r}"
    # the names stay findable: what is printable of them is kept
    assert "bad.jpg" in done.stdout and "clr.jpg" in done.stdout and "images skipped" in done.stdout
    assert "link.jpg" in said["run.log"] and "unreadable" in said["run.log"]


def test_the_names_a_part_keeps_are_printable(tmp_path):
    problems = images.Problems()
    problems.add("truncated", str(tmp_path / RETITLE))
    merged = images.Problems()
    merged.merge(problems)
    assert RETITLE.replace("\x1b]0;pwned\x07", "") in merged.describe()
    assert not [c for c in OBEYED if c in merged.describe()]
    data = tmp_path / "data"
    _data(data)
    s = survey.survey(str(data))
    assert s.unreadable == 1 and s.examples == ["link.jpg"]
