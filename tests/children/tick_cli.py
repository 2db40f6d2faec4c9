"""`python -m tick_cli ARGS` is `cardbench ARGS` with the stand-in workload `tick` registered (torch-free, endless).

A detached run re-runs this module (tui.detach.ENTRY), so the detached process knows `tick` too.
tests/children must be on PYTHONPATH: the runner starts `python -m tick_workload`.
"""
import sys

from tui import cli, detach
from workloads import registry
from workloads.result_record import record_of
from workloads.spec import Param, Text, WorkloadSpec

SPEC = WorkloadSpec(
    name="tick", title=Text("Tick stand-in", "滴答"), result=record_of("ticks_per_s", "ticks/s", Text("ticks/s")),
    params=(Param("delay", "delay", "--delay", "0.2", "text"),),
    module="tick_workload",
)

if __name__ == "__main__":
    detach.ENTRY = "tick_cli"
    with registry.registered(SPEC):
        sys.exit(cli.main())
