"""A short, torch-free stand-in for a training workload: start, STEPS steps (loss falls), result, end.

argv: [steps] [delay_s] [unit]. Honours SIGTERM like the real harness: end(stopped), exit 143.
"""
import signal
import sys
import time

from _emit import emit

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
unit = sys.argv[3] if len(sys.argv) > 3 else "images/s"


def _stopped(signum, frame):
    emit("end", status="stopped")
    sys.exit(143)


signal.signal(signal.SIGTERM, _stopped)
emit("start", workload="steady", config={"steps": steps}, device="cpu", versions={"python": sys.version.split()[0]})
for step in range(1, steps + 1):
    time.sleep(delay)
    emit("step", step=step, epoch=0, loss=round(3.0 / step, 4), throughput=100.0 + step, unit=unit, step_s=delay)
emit("result", metrics={"images_per_s": 100.0 + steps, "final_loss": round(3.0 / steps, 4)})
emit("end", status="ok")
