"""A torch-free stand-in for a run that times nothing (`cardbench fit`, llm --fit-only): start, a pause the sampler
can fill, a result of the given metrics, end; no step.

argv: [metrics as JSON] [pause_s].
"""
import json
import sys
import time

from _emit import emit

metrics = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
emit("start", workload="llm", config={"fit_only": True}, device="none", versions={"python": sys.version.split()[0]})
time.sleep(pause)
emit("result", metrics=metrics)
emit("end", status="ok")
