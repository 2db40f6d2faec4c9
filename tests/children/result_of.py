"""A torch-free stand-in for any workload that ends with the result it is given: start, one step, result, end.

argv: [metrics as JSON] [device]. Honours SIGTERM like the real harness: end(stopped), exit 143.
"""
import json
import signal
import sys

from _emit import emit

metrics = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
device = sys.argv[2] if len(sys.argv) > 2 else "cpu (stand-in)"


def _stopped(signum, frame):
    emit("end", status="stopped")
    sys.exit(143)


signal.signal(signal.SIGTERM, _stopped)
emit("start", workload="stand-in", config={}, device=device, versions={"python": sys.version.split()[0]})
emit("step", step=1, epoch=0, throughput=1.0, unit="tokens/s", step_s=0.01)
emit("result", metrics=metrics)
emit("end", status="ok")
