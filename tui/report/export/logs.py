"""The export's logs stage: logs/<run>/ holds each run's run.log, events.jsonl, config.json and the files its
workload's report points to (opscan's ops.csv), every one redacted."""

from __future__ import annotations

from typing import Sequence

from tui.report.bundle import Bundle
from tui.redact import without_record
from tui.store.record import RunRecord
from workloads import registry
from workloads.rundir import CONFIG, EVENTS, LOG, READINESS
from workloads.rundir.read import read_text_all


def write_logs(records: Sequence[RunRecord], shown: Sequence[RunRecord], bundle: Bundle) -> None:
    """Each run's files; ``shown`` are the runs redacted (their run.log is not redacted twice)."""
    for record, drawn in zip(records, shown):
        folder = f"logs/{record.id}"
        bundle.add_redacted_text(f"{folder}/{LOG}", drawn.log_text)  # redacted once, for the screen
        # one events.jsonl in the bundle: a rotated run's segments before the live file
        bundle.add_jsonl(f"{folder}/{EVENTS}", read_text_all(record.path / EVENTS))
        # what the run recorded for the redactor (digests of its secrets) stays on the user's disk
        bundle.add_json(f"{folder}/{CONFIG}", without_record(record.config))
        # what the workload's report points to (ops.csv), and a `cardbench ready` run's table (--against reads it)
        for name in (*registry.spec_for(record.workload).run_files, READINESS):
            extra = record.path / name
            if extra.is_file():
                bundle.add_text(f"{folder}/{name}", extra.read_text(encoding="utf-8", errors="replace"))
