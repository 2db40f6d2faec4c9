"""A workload in a long silent phase (a compile, a stalled loader, a hung collective): no event for 10 minutes.

argv: pid_file. Goes through the real harness, as every cardbench workload does.
"""
import os
import sys
import time

from workloads.child.harness import run_main


def main(emitter, argv):
    emitter.start("silent", {}, "cpu", {})
    with open(argv[0], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(600)
    return 0


sys.exit(run_main(main))
