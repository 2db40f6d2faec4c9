"""The environment doctor (`cardbench doctor [--json]`): is the card there, and does this PyTorch use it?

- ``facts``: what is gathered from the machine (`Facts`, `gather`): the management CLI,
  NVML, the PCI bus, a torch probe child, TensorFlow in its own child, disk, env vars.
- ``checks`` (and ``busy``): the verdicts, pure functions of the facts (`all_checks.checks_from`), testable without
  a GPU.
- ``check``: one verdict (`DoctorCheck`: stable id, status, evidence, hint, value) and the
  look-ups that find a check by id in objects or in doctor.json dicts.
- ``run``: run them on this machine (`run_checks`, and `data_checks` for a data directory); `cardbench doctor`
  (tui.cli.doctor) prints them and sets the exit status.
- a check's name, evidence and hint are the catalogue's words (`workloads.catalogue`): ``DoctorCheck.words`` holds
  its messages, said in the reader's language where shown (`own_words`), and `hint_id` names a hint of the catalogue.

torch is never imported in this process. The gathering and the checks are imported when first asked for
(`__getattr__`): the workbench's doctor pane needs only ``check`` for its first frame.
"""

from __future__ import annotations

from tui.doctor.check import (FAIL, PASS, SKIP, STATUSES, TITLES, WARN, DoctorCheck, accelerator_seen,
                              best_autocast, check_passed, check_value, field_of, find_check, id_of, totals,
                              value_of)

_ALL_CHECKS, _FACTS, _RUN = "tui.doctor.all_checks", "tui.doctor.facts", "tui.doctor.run"
_LAZY = {"checks_from": _ALL_CHECKS, "Facts": _FACTS, "gather": _FACTS, "gather_cli": _FACTS, "gather_nvml": _FACTS,
         "run_checks": _RUN}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tui.doctor' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

__all__ = ["FAIL", "PASS", "SKIP", "STATUSES", "TITLES", "WARN", "DoctorCheck", "Facts", "accelerator_seen",
           "best_autocast", "check_passed", "check_value", "checks_from", "field_of", "find_check",
           "gather", "gather_cli", "gather_nvml", "id_of", "run_checks", "totals", "value_of"]
