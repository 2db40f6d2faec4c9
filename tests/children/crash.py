"""Emits a start and two steps, says a device error on stderr, then dies with os._exit(3)."""
import os
import sys

from _emit import emit

emit("start", workload="crash", config={}, device="cpu", versions={})
emit("step", step=1, loss=2.5)
emit("step", step=2, loss=2.0)
sys.stderr.write("RuntimeError: CUDA error: device kernel image is invalid\n")
sys.stderr.flush()
os._exit(3)
