"""The environment doctor (`cardbench doctor [--json]`): is the card there, and does this PyTorch use it?

- ``facts``: what is gathered from the machine (`Facts`, `gather`): the management CLI,
  NVML, the PCI bus, a torch probe child, TensorFlow in its own child, disk, env vars.
- ``checks`` (and ``busy``): the verdicts, pure functions of the facts (`all_checks.checks_from`), testable without
  a GPU.
- ``check``: one verdict (`DoctorCheck`: stable id, status, evidence, hint, value) and the
  look-ups that find a check by id in objects or in doctor.json dicts.
- ``command``: `cardbench doctor`: run them (`run_checks`), print them (`render`, ending with `totals`),
  exit status (`main`).
- ``zh``: the Chinese of the check names and of every hint (`DoctorCheck.zh` carries them per check).

torch is never imported in this process.
"""

from __future__ import annotations

from tui.doctor.check import (FAIL, PASS, SKIP, STATUSES, TITLES, WARN, DoctorCheck, accelerator_seen,
                              best_autocast, check_passed, check_value, field_of, find_check, id_of, totals,
                              value_of)
from tui.doctor.all_checks import checks_from
from tui.doctor.facts import Facts, gather, gather_cli, gather_nvml
from tui.doctor.command import exit_code, main, render, run_checks

__all__ = ["FAIL", "PASS", "SKIP", "STATUSES", "TITLES", "WARN", "DoctorCheck", "Facts", "accelerator_seen",
           "best_autocast", "check_passed", "check_value", "checks_from", "exit_code", "field_of", "find_check",
           "gather", "gather_cli", "gather_nvml", "id_of", "main", "render", "run_checks", "totals",
           "value_of"]
