"""The export's reading stage: the run directories read whole, and the one device snapshot of the export."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tui import store, telemetry
from tui.report.bundle import BundleError
from tui.report.i18n import note, quoted
from tui.store.record import RunRecord


@dataclass(frozen=True)
class Devices:
    """The export's one device snapshot: env.json, the device table and the screenshot share it."""

    sample: Any                 # tui.telemetry.Sample, or None when detection failed
    note: str | None = None     # why detection failed, for env.json
    notes: tuple[str, ...] = ()  # the same, for the report's notes


def read_runs(run_dirs: Sequence[Path]) -> list[RunRecord]:
    """Every run, read whole; a directory that is not a readable run is BundleError (one line)."""
    records = []
    for path in run_dirs:
        try:
            records.append(store.load_run(path))
        except store.RunStoreError as exc:
            raise BundleError(str(exc)) from None
    return records


def detect_devices(sample: Any) -> Devices:
    """The caller's snapshot, or one taken now (before the doctor starts: one NVML user at a time)."""
    if sample is not None:
        return Devices(sample)
    try:
        return Devices(telemetry.collect_once())
    except Exception as exc:  # noqa: BLE001 - no devices is a note in the report, not a lost report
        error = f"{type(exc).__name__}: {exc}"
        return Devices(None, f"device detection failed: {error}", (note("note_devices_failed", error=quoted(error)),))
