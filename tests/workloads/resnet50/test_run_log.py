"""`cardbench run resnet50` on the CPU, as a user runs it: run.log has one line per step, counted over the cap."""
import json
import re
import subprocess
import sys

from workloads.resnet50.result import num


def test_a_capped_run_logs_each_step_once_over_the_cap_and_one_median_everywhere(tmp_path):
    runs = tmp_path / "runs"
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "run", "resnet50", "--device", "cpu", "--image-size", "32",
                           "--batch-size", "2", "--num-classes", "10", "--threads", "1", "--warmup", "1",
                           "--steps", "4", "--runs-dir", str(runs)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=240)
    assert proc.returncode == 0, proc.stderr
    (run,) = runs.iterdir()
    log = [line.split("] ", 1)[1] for line in (run / "run.log").read_text().splitlines()]
    # 3 epochs of 12800 images asked for (the defaults): 6400 steps an epoch, of which the cap runs 4
    step_lines = [line for line in log if re.match(r"step \d", line)]
    assert [line.split(" | ")[:2] for line in step_lines] == [[f"step {n}/4", "epoch 1/1"] for n in (1, 2, 3, 4)]
    assert ["warm-up" in line.split(" | ") for line in step_lines] == [True, False, False, False]
    assert all("images/s this step" in line for line in step_lines)
    # no second line, in another format, for the same step ("step 3 | ...", "epoch 1/3 step 3/6400 ...")
    assert sum(bool(re.search(r"\bstep 3(/| \|)", line)) for line in log) == 1
    assert not any("/6400" in line or "epoch 1/3" in line for line in log)
    assert "6400 steps per epoch; 4 steps planned in epoch 1 (--steps 4 caps the 3 epochs asked for)" in "\n".join(log)
    # the epoch summary and the result's line give the run's headline figure, by its name
    result = json.loads((run / "events.jsonl").read_text().splitlines()[-2])["metrics"]
    headline = f"median after warm-up {num(result['images_per_s'])} images/s"
    (summary,) = [line for line in log if line.startswith("epoch 1/1 ")]
    assert summary.startswith("epoch 1/1 ended early, after 4 of its 6400 steps (--steps 4): mean loss ")
    assert f", {headline} (3 steps, 1 warm-up left out)" in summary
    assert any(line.startswith(f"result: {headline} ") for line in log)
    # the terminal shows the same step lines as run.log
    assert [line for line in proc.stdout.splitlines() if re.match(r"step \d", line)] == step_lines
