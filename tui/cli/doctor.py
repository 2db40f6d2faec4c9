"""`cardbench doctor [--json] [--data DIR]`: run every check on this machine and print them, as text or JSON.

``--data DIR`` adds a quick look at a data directory, from the spec of the workload that offers one
(``WorkloadSpec.data_check``): not one of the machine's checks (``TITLES``), only there when asked for.
"""

from __future__ import annotations

import json
import sys
from typing import Callable, TextIO

from tui.doctor.check import FAIL, DoctorCheck, totals
from tui.doctor.all_checks import checks_from
from tui.doctor.facts import PROBE_TIMEOUT_S, gather
from tui.i18n import say
from workloads import registry

DATA_CHECK = "data.dir"   # its id; its name is the catalogue's check.data.dir


def run_checks(probe_timeout: float = PROBE_TIMEOUT_S, on_progress: Callable[[str], None] | None = None) -> list[DoctorCheck]:
    """Every check, on this machine. Takes a few seconds (the torch child); run it off the UI thread."""
    return checks_from(gather(probe_timeout=probe_timeout, on_progress=on_progress))


def data_checks(path: str) -> list[DoctorCheck]:
    """The quick data-directory check of each workload that has one (torch-free, a few seconds)."""
    cid = DATA_CHECK
    name, name_zh = say(f"check.{cid}"), say(f"check.{cid}", "zh")
    out = []
    for spec in registry.specs():
        if spec.data_check is None:
            continue
        said = dict(spec.data_check(path))
        zh = {"name": name_zh, **{k: v for k, v in (said.get("zh") or {}).items() if v}}
        value = said.get("value")
        out.append(DoctorCheck(name, str(said.get("status", FAIL)), str(said.get("evidence", "")),
                               str(said.get("hint", "")), id=cid, value=float(value) if value is not None else None,
                               unit=said.get("unit") if value is not None else None, zh=zh))
    return out


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
