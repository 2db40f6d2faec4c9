"""`python -m tick_cli ARGS` is `cardbench ARGS` with the stand-in workload `tick` registered (torch-free, endless).

A detached run re-runs this module (tui.detach.ENTRY), so the detached process knows `tick` too.
tests/children must be on PYTHONPATH: the runner starts `python -m tick_workload`.
"""
import sys

from tui import cli, detach
from workloads import registry
from workloads.spec import Metric, Param, Text, WorkloadSpec

SPEC = WorkloadSpec(
    name="tick", title=Text("Tick stand-in", "滴答"), unit="ticks/s", headline="ticks_per_s",
    params=(Param("delay", "delay", "--delay", "0.2", "text"),),
    metrics=(Metric("ticks_per_s", Text("ticks/s"), "rate"),),
    module="tick_workload",
)

if __name__ == "__main__":
    detach.ENTRY = "tick_cli"
    with registry.registered(SPEC):
        sys.exit(cli.main())
