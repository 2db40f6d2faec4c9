"""One "node" of a multi-node collectives run on the CPU: the microbench's collective options, as a command.

Prints the rows as one JSON list on stdout and exits 0; on a WorkloadError, one line
on stdout (``error: MESSAGE (HINT)``) and exit 1, as the workload's error event would say it.
"""
import argparse
import json
import sys

from workloads.child.harness import WorkloadError
from workloads.microbench.collectives import add_collective_arguments, collective_kwargs, measure_collectives

parser = argparse.ArgumentParser(prog="collective_node")
add_collective_arguments(parser)
args = parser.parse_args()
try:
    rows = measure_collectives("cpu", **collective_kwargs(args))
except WorkloadError as exc:
    print(f"error: {exc.message} ({exc.hint})", flush=True)
    sys.exit(1)
print(json.dumps(rows), flush=True)
