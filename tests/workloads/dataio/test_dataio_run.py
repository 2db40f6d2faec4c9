"""The workload end to end, as a child: events, a verdict, bad files counted, nothing written in DIR, made data
removed, bad input one line."""

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

from workloads.dataio.images import PROBLEMS
from workloads.dataio.result_record import DataioResult

SMALL = ["--seconds", "0.2", "--max-workers", "1", "--batch-size", "4", "--device", "cpu"]


def _run(*args: str, runs_dir=None) -> tuple[int, list[dict], str]:
    env = {**os.environ, "CARDBENCH_RUNS_DIR": str(runs_dir or "/nonexistent-runs")}
    env.pop("CARDBENCH_RUN_DIR", None)
    done = subprocess.run([sys.executable, "-m", "workloads.dataio", *args], check=False, cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=240)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def _jpeg(path, size=(64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (20, 120, 200)).save(out, "JPEG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return out.getvalue()


def _tree(root) -> dict:
    return {str(p.relative_to(root)): (p.lstat().st_mtime_ns, p.lstat().st_size) for p in root.rglob("*")}


def test_a_data_dir_with_bad_files_gives_a_verdict_counts_them_and_is_left_as_it_was(tmp_path):
    data = tmp_path / "data"
    for i in range(6):
        good = _jpeg(data / "cls" / f"{i}.jpg")
    out = io.BytesIO()
    Image.new("RGB", (30, 30)).save(out, "PNG")
    (data / "cls" / "png.jpg").write_bytes(out.getvalue())
    (data / "cls" / "cut.jpg").write_bytes(good[:150])
    os.symlink(data, data / "cls" / "loop")
    before = _tree(data)
    code, events, stderr = _run("--data", str(data), "--consumer-rate", "2", *SMALL, runs_dir=tmp_path / "runs")
    assert code == 0, stderr
    assert "Traceback" not in stderr
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-2:] == ["result", "end"] and events[-1]["status"] == "ok"
    assert [e["part"] for e in events if e["event"] == "step"] == ["survey", "storage", "decode", "loader", "verdict"]
    m = events[-2]["metrics"]
    assert m["images"] == 8 and m["link_loops"] == 1 and m["bad_misnamed"] == 1 and m["bad_truncated"] == 1
    assert [r["workers"] for r in m["loader"]] == [0, 1] and all(r["images_per_s"] for r in m["loader"])
    assert m["verdict"] == "compute-bound" and m["consumer_basis"] == "given" and m["image_size"] == 224
    # never 0 workers, though the in-process loader keeps up with 2 images/s too
    assert m["loader_workers"] == 1 and m["loader_images_per_s"] == m["loader"][1]["images_per_s"]
    assert "verdict_line" not in m and "consumer_source" not in m   # said from the figures (words.py)
    assert m["pil_per_core"] > 0 and m["torchvision_per_core"] > 0 and m["transforms_per_core"] > 0
    warned = {e.get("code") for e in events if e["event"] == "warning"}
    assert {"data_skipped", "images_skipped"} <= warned
    assert _tree(data) == before   # nothing written, nothing touched
    # every figure of the run (bad files, a link loop, a cold and a warm read) is one its record declares
    assert DataioResult.of(m).undeclared() == []


def test_every_kind_of_image_the_decode_part_skips_is_a_declared_count():
    """The kinds a run with bad files does not make (an image over PIL's bomb limit, a file too large to be one)."""
    assert [k for k in PROBLEMS if getattr(DataioResult.figure(f"bad_{k}"), "unit", None) != ""] == []


def test_made_data_is_removed_and_a_cpu_resnet50_run_is_the_card_rate(tmp_path):
    runs = tmp_path / "runs"
    (runs / "20261204-090000-resnet50-abcd").mkdir(parents=True)
    (runs / "20261204-090000-resnet50-abcd" / "config.json").write_text('{"workload": "resnet50"}')
    (runs / "20261204-090000-resnet50-abcd" / "events.jsonl").write_text(json.dumps(
        {"event": "result", "metrics": {"images_per_s": 1e6, "device": "cpu (x86_64, 2 threads)", "image_size": 64}})
        + "\n")
    made_in = tmp_path / "made"
    made_in.mkdir()
    code, events, stderr = _run("--make-data", "6", "--make-data-in", str(made_in), *SMALL, runs_dir=runs)
    assert code == 0, stderr
    m = events[-2]["metrics"]
    # a million images/s is more than the loader gives: data-bound, or storage-bound where the six files read cold
    # came slower than the loader warm (a loaded host, one suite run in two here); never compute-bound
    assert m["data_made"] == 6 and m["images"] == 6 and m["verdict"] in ("data-bound", "storage-bound"), m["verdict"]
    assert m["consumer_run"] == "20261204-090000-resnet50-abcd"
    # the loader made the crops the card's run trained on: one image size on both sides, nothing scaled
    assert m["image_size"] == m["consumer_image_size"] == 64 and m["consumer_images_per_s"] == 1e6
    assert m.get("consumer_measured_images_per_s") is None
    assert list(made_in.iterdir()) == []


def test_an_image_size_other_than_the_card_run_s_scales_its_rate_by_pixels(tmp_path):
    runs = tmp_path / "runs"
    (runs / "20261204-090000-resnet50-abcd").mkdir(parents=True)
    (runs / "20261204-090000-resnet50-abcd" / "config.json").write_text('{"workload": "resnet50"}')
    (runs / "20261204-090000-resnet50-abcd" / "events.jsonl").write_text(json.dumps(
        {"event": "result", "metrics": {"images_per_s": 1000.0, "device": "cpu (x86_64, 2 threads)", "image_size": 64}})
        + "\n")
    code, events, stderr = _run("--make-data", "4", "--image-size", "128", *SMALL, runs_dir=runs)
    assert code == 0, stderr
    m = events[-2]["metrics"]
    assert m["image_size"] == 128 and m["consumer_image_size"] == 64 and m["consumer_measured_images_per_s"] == 1000.0
    assert m["consumer_images_per_s"] == 250.0   # 1,000 x (64 / 128)^2: a 128 px image has 4x the pixels
    assert "1,000 images/s at 64 px, scaled by pixels to 128 px" in stderr   # run.log's verdict says so


@pytest.mark.parametrize("args, said", [
    (["--data", "/nonexistent/images"], "data directory /nonexistent/images does not exist"),
    (["--data", "/tmp", "--make-data", "3"], "give --data DIR or --make-data N, not both"),
    (["--make-data", "3", "--image-size", "8"], "--image-size 8: from 32 to 1024 px"),
])
def test_bad_input_is_one_error_line_and_exit_2(args, said):
    code, events, stderr = _run(*args)
    assert code == 2 and "Traceback" not in stderr
    errors = [e for e in events if e["event"] == "error"]
    assert len(errors) == 1 and errors[0]["message"] == said
