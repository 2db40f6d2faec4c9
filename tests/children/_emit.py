"""Tiny event writer for the runner's test children (no cardbench import: they stand for any workload)."""
import json
import sys
import time


def emit(kind, **fields):
    sys.stdout.write(json.dumps({"event": kind, "t": time.time(), **fields}) + "\n")
    sys.stdout.flush()
