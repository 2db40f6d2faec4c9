"""`cardbench ready --model tiny` on this machine: its wall time beside the 3-minute bound, and the table it printed.

    .venv/bin/python bench/ready_tiny.py [--keep DIR] [-- extra cardbench ready options]

Issue 38's figure: on a CPU-only machine `cardbench ready --model tiny` finishes within 3 minutes and fills every row
(N/A with a reason where a CPU has no such figure). This runs the real command (the doctor, six sub-runs, the
bundle) in a fresh runs dir and output dir, and prints the wall time from start to the bundle's path, the load
average it ran under (a shared host is slower), the rows that are N/A with their reasons, and the table itself.
With a GPU it runs there (the command picks the first accelerator), where the bound is the issue's 15 minutes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOUND_S = {"cpu": 180.0, "accelerator": 900.0}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--keep", type=Path, help="keep the runs and the bundle here (default: a temporary folder)")
    p.add_argument("--model", default="tiny")
    p.add_argument("extra", nargs="*", help="more `cardbench ready` options, after --")
    args = p.parse_args()
    where = args.keep or Path(tempfile.mkdtemp(prefix="ready-bench-"))
    (where / "out").mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tui.cli", "ready", "--model", args.model, "--runs-dir", str(where / "runs"),
               "-o", str(where / "out"), *args.extra]
    load_before = os.getloadavg()[0]
    began = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True)
    wall = time.monotonic() - began
    lines = done.stdout.splitlines()
    on_cpu = " on cpu" in (lines[0] if lines else "")
    bound = BOUND_S["cpu" if on_cpu else "accelerator"]
    print(f"command: {' '.join(command[1:])}")
    print(f"exit status {done.returncode}; wall time {wall:.1f} s from start to the bundle's path "
          f"(bound {bound:.0f} s {'on the CPU' if on_cpu else 'on an accelerator'}: "
          f"{'within' if wall <= bound else 'OVER'}); load average {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores")
    verdicts = [line for line in lines if line.split("  ", 1)[0] in ("PASS", "WARN", "FAIL", "N/A")]
    print(f"rows with a verdict line: {len(verdicts)} (every question has one); N/A rows and why:")
    for line in verdicts:
        if line.startswith("N/A"):
            print(f"  {line}")
    print()
    print("\n".join(lines))
    if done.returncode not in (0, 1):
        print(done.stderr[-4000:], file=sys.stderr)
    print(f"runs and bundle in {where}")
    return 0 if done.returncode in (0, 1) and wall <= bound else 1


if __name__ == "__main__":
    sys.exit(main())
