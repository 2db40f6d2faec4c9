"""The run directory: what its files are called. Torch- and UI-free: the run store and the workbench (tui/) and
the workloads that read their own run (the soak, opscan's table) all take the names from here.

    <runs dir>/<run id>/
        config.json       what was asked for (workload, arguments, start time), and under "redact"
                          the salted digests of the secrets the arguments hold (never the values)
        events.jsonl      every protocol event, appended and flushed as it arrives
        run.log           the human-readable log: event lines and the workload's stderr
        telemetry.jsonl   device/host samples taken while the run was active
        live.json         while the run goes on: who records it (tui.store.live)
        doctor.json       a headless run's doctor checks, for a later `cardbench export --run`
        readiness.json    a `cardbench ready` run's readiness table (the same in each of its runs)

A long file is rotated into numbered, gzipped segments beside it (``segments``: telemetry.0001.jsonl.gz...);
``read`` reads a file back with its segments, oldest first, and config.json checked into a dict. Nothing
outside this package spells a file's name (tests/test_imports.py holds that).
"""

from __future__ import annotations

CONFIG = "config.json"
EVENTS = "events.jsonl"
LOG = "run.log"
TELEMETRY = "telemetry.jsonl"
LIVE = "live.json"
DOCTOR = "doctor.json"
READINESS = "readiness.json"

# every name above: the import test's list of what only this package may spell
FILES = (CONFIG, EVENTS, LOG, TELEMETRY, LIVE, DOCTOR, READINESS)
