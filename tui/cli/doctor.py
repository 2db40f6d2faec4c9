"""`cardbench doctor [--json] [--data DIR]`: run every check on this machine and print them, as text or JSON.

``--data DIR`` adds a quick look at a data directory (`tui.doctor.run.data_checks`): not one of the machine's
checks (``TITLES``), only there when asked for.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from tui.doctor.check import FAIL, DoctorCheck, totals
from tui.doctor.run import data_checks, run_checks


def render(checks: list[DoctorCheck]) -> str:
    width = max(len(c.name) for c in checks)
    lines = []
    for c in checks:
        lines.append(f"{c.status:<4}  {c.name:<{width}}  {c.evidence}")
        if c.hint:
            lines.append(f"{'':<4}  {'':<{width}}  hint: {c.hint}")
    lines.append("")
    lines.append(totals(checks))
    return "\n".join(lines)


def exit_code(checks: list[DoctorCheck]) -> int:
    """1 when any check FAILs, else 0: WARN and SKIP are not failures (a CPU machine skips most checks)."""
    return 1 if any(c.status == FAIL for c in checks) else 0


def main(as_json: bool = False, out: TextIO | None = None, data: str | None = None) -> int:
    """Print the checks (and the data directory's with ``data``); the exit status is `exit_code`'s, or 130 when
    interrupted."""
    out = out or sys.stdout
    try:
        checks = run_checks() + (data_checks(data) if data is not None else [])
    except KeyboardInterrupt:
        print("cardbench: interrupted", file=sys.stderr)
        return 130
    if as_json:
        out.write(json.dumps([c.to_dict() for c in checks], indent=2) + "\n")
    else:
        out.write(render(checks) + "\n")
    return exit_code(checks)
