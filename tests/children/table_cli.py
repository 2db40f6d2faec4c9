"""`python -m table_cli ARGS` is `cardbench ARGS` with the stand-in `tally`: tick's child (tests/children/tick_workload.py)
under a record that has a report table, so `cardbench run` has a table to print under its RESULT line."""
import sys
from dataclasses import dataclass
from typing import ClassVar

from tui import cli
from workloads import registry
from workloads.result_record import Record, figure
from workloads.spec import Text, WorkloadSpec


def report_table(metrics):
    return Text("Tally of the ticks"), [Text("what"), Text("ticks/s")], [["all", str(metrics.get("ticks_per_s"))]]


@dataclass
class TallyResult(Record):
    HEADLINE: ClassVar[str] = "ticks_per_s"
    REPORT_TABLE: ClassVar[str | None] = "table_cli:report_table"
    ticks_per_s: float | None = figure(Text("ticks/s"), "ticks/s")


SPEC = WorkloadSpec(name="tally", title=Text("Tally stand-in"), result=TallyResult, module="tick_workload")

if __name__ == "__main__":
    with registry.registered(SPEC):
        sys.exit(cli.main())
