"""Run the doctor's checks on this machine (`run_checks`), and the quick data-directory check of each workload
that offers one (`data_checks`, from ``WorkloadSpec.data_check``); `cardbench doctor`, the workbench's doctor
screen and the export call them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from tui.doctor.all_checks import checks_from
from tui.doctor.check import FAIL, DoctorCheck
from tui.doctor.facts import PROBE_TIMEOUT_S, gather
from tui.i18n import say
from workloads import registry
from workloads.spec import Text

DATA_CHECK = "data.dir"   # its id; its name is the catalogue's check.data.dir


def run_checks(probe_timeout: float = PROBE_TIMEOUT_S, on_progress: Callable[[str], None] | None = None) -> list[DoctorCheck]:
    """Every check, on this machine. Takes a few seconds (the torch child); run it off the UI thread."""
    return checks_from(gather(probe_timeout=probe_timeout, on_progress=on_progress))


def data_checks(path: str) -> list[DoctorCheck]:
    """The quick data-directory check of each workload that has one (torch-free, a few seconds)."""
    cid = DATA_CHECK
    name = say(f"check.{cid}")
    out = []
    for spec in registry.specs():
        if spec.data_check is None:
            continue
        said = dict(spec.data_check(path))
        value = said.get("value")
        out.append(DoctorCheck(name, str(said.get("status", FAIL)), str(said.get("evidence", "")),
                               str(said.get("hint", "")), id=cid, value=float(value) if value is not None else None,
                               unit=said.get("unit") if value is not None else None, words=_words(said)))
    return out


def _words(said: Mapping[str, Any]) -> dict[str, Text]:
    """A data check's own words: its English and the Chinese it gives beside (``zh``), said when shown."""
    chinese = said.get("zh") or {}
    return {key: Text(str(said.get(key) or ""), str(chinese[key])) for key in ("evidence", "hint")
            if isinstance(chinese.get(key), str) and chinese[key].strip()}
