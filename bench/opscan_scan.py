"""Times the operator-coverage scan: the op count, the wall time, and what each injected crash restart costs.

    python bench/opscan_scan.py                      # the default scan (ResNet-50, GPT-2 decode and training)
    python bench/opscan_scan.py --crashes 3          # and a second scan with 3 injected crashes, to time restarts
    python bench/opscan_scan.py --device cuda        # the same on a GPU

Targets (issue 11): the whole default scan in at most 3 minutes on a 2-core CPU; under 5 s per restart.
The restart figure is measured by the supervisor: from the worker's death to the next worker's first case.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# ops of the built-ins that a crash is injected into, in bf16 (each one costs a restart)
CRASH_OPS = ("aten.native_layer_norm", "aten.gelu", "aten.addmm", "aten.convolution", "aten.native_batch_norm")


def run_scan(args: list[str], inject: str, state: str) -> tuple[dict, float, str]:
    env = dict(os.environ, CARDBENCH_OPSCAN_STATE=state, CARDBENCH_INJECT_OP_FAILURE=inject)
    env["PYTHONPATH"] = f"{REPO}{os.pathsep}{env.get('PYTHONPATH', '')}"
    began = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "workloads.opscan", *args], capture_output=True, text=True,
                          env=env, cwd=REPO, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    result = {}
    for line in proc.stdout.splitlines():
        event = json.loads(line)
        if event.get("event") == "result":
            result = event["metrics"]
    if proc.returncode != 0 or not result:
        sys.exit(f"scan failed (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
    return result, wall, proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--crashes", type=int, default=2, help="crashes injected in the second scan (0: none)")
    parser.add_argument("--sources", default=None, help="built-ins to record (default: all)")
    options = parser.parse_args()
    base = ["--device", options.device] + (["--sources", options.sources] if options.sources else [])
    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as out:
        result, wall, _ = run_scan(base + ["--out", out], "", state)
        failing = ", ".join(f"{f['op']} {f['dtype']} {f['status']}" for f in result["failures"]) or "none"
        print(f"default scan on {options.device}: {result['ops']} ops, {result['calls']} recorded calls, "
              f"{result['rows']} op x dtype rows, {result['cases_run']} cases; wall {wall:.1f} s (the scan "
              f"{result['scan_s']:.1f} s of it, recording the models {result['record_s']:.1f} s of that; "
              f"target <= 180 s on a 2-core CPU)")
        print("  ok per dtype: " + ", ".join(f"{d} {c['ok']}" for d, c in result["by_dtype"].items())
              + f"; failing: {failing}")
        if options.crashes:
            inject = ",".join(f"{op}:bf16=crash" for op in CRASH_OPS[:options.crashes])
            crashed, wall2, _ = run_scan(base + ["--out", out, "--dtypes", "bf16"], inject, state)
            lost = crashed["restart_s"]
            print(f"bf16 scan with {options.crashes} injected crash(es): {crashed['crashes']} crash(es), "
                  f"wall {wall2:.1f} s; time lost per restart: " + ", ".join(f"{s:.2f} s" for s in lost)
                  + " (target < 5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
