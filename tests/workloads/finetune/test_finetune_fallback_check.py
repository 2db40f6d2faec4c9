"""`finetune --cpu-fallback-check on`: the steps after the warm-up are profiled, flagged and left out as warm-up is,
the check's figures are in the result (declared: the tests run strict), and the run log says it (issue 38 item 2)."""
import json
import os
import subprocess
import sys

from paths import REPO

SMALL = ["--device", "cpu", "--seq-len", "16", "--amp", "off", "--threads", "1", "--mode", "lora", "--batch-size",
         "2", "--warmup", "1"]


def _run(*args):
    proc = subprocess.run([sys.executable, "-m", "workloads.finetune", *SMALL, *args], cwd=REPO, text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, env=os.environ, timeout=240)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, events, proc.stderr


def test_the_watched_steps_are_warm_up_and_the_result_carries_the_check():
    code, events, err = _run("--steps", "7", "--cpu-fallback-check", "on")
    assert code == 0, err
    steps = [e for e in events if e["event"] == "step"]
    assert [bool(s.get("warmup")) for s in steps] == [True, True, True, True, False, False, False]
    (result,) = [e["metrics"] for e in events if e["event"] == "result"]
    assert (result["steps_counted"], result["warmup_steps"]) == (3, 4)
    assert result["cpu_fallback_steps_watched"] == 3 and result["cpu_fallback_ops"] == []
    assert result["host_device_copies_per_step"] == 0
    assert "CPU fallback check: 3 step(s) profiled after the warm-up, then off; 0 op(s) ran on the CPU" in err
