"""Stands for a detached cardbench command: says how it was started, then waits to be stopped."""
import json
import os
import sys
import time

print(json.dumps({"argv": sys.argv[1:], "pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgid(0),
                  "stdin_tty": os.isatty(0), "detached": os.environ.get("CARDBENCH_DETACHED"),
                  "runs_dir": os.environ.get("CARDBENCH_RUNS_DIR")}), flush=True)
time.sleep(float(os.environ.get("PROBE_SLEEP_S", "30")))
