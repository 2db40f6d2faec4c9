"""`cardbench doctor [--json]`: run every check on this machine and print them, as text or JSON."""

from __future__ import annotations

import json
import sys
from typing import Callable, TextIO

from tui.doctor.check import FAIL, DoctorCheck, totals
from tui.doctor.checks import checks_from
from tui.doctor.facts import PROBE_TIMEOUT_S, gather


def run_checks(probe_timeout: float = PROBE_TIMEOUT_S, on_progress: Callable[[str], None] | None = None) -> list[DoctorCheck]:
    """Every check, on this machine. Takes a few seconds (the torch child); run it off the UI thread."""
    return checks_from(gather(probe_timeout=probe_timeout, on_progress=on_progress))


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


def main(as_json: bool = False, out: TextIO | None = None) -> int:
    """Print the checks; the exit status is `exit_code`'s, or 130 when interrupted."""
    out = out or sys.stdout
    try:
        checks = run_checks()
    except KeyboardInterrupt:
        print("cardbench: interrupted", file=sys.stderr)
        return 130
    if as_json:
        out.write(json.dumps([c.to_dict() for c in checks], indent=2) + "\n")
    else:
        out.write(render(checks) + "\n")
    return exit_code(checks)
