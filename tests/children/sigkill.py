"""Emits events, then kills itself with SIGKILL (as the OOM killer would)."""
import os
import signal

from _emit import emit

emit("start", workload="sigkill", config={}, device="cpu", versions={})
emit("step", step=1, loss=1.0)
os.kill(os.getpid(), signal.SIGKILL)
