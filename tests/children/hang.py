"""Ignores SIGTERM and hangs, with a grandchild in its group; writes both pids to argv[1]."""
import signal
import subprocess
import sys
import time

from _emit import emit

signal.signal(signal.SIGTERM, signal.SIG_IGN)
grandchild = subprocess.Popen([sys.executable, "-c", "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
import os
with open(sys.argv[1], "w") as handle:
    handle.write(f"{os.getpid()} {grandchild.pid}\n")
emit("start", workload="hang", config={}, device="cpu", versions={})
emit("step", step=1, loss=1.0)
while True:
    time.sleep(1)
