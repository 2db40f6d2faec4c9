"""A scan's state on disk, torch-free: its plan, its recording and its journal, in one directory.

The directory is named after the scan's plan (sources, dtypes, device, seed), under
``$CARDBENCH_OPSCAN_STATE`` or ``$XDG_CACHE_HOME/cardbench/opscan`` (``~/.cache/...``), so ``--resume``
finds the scan the same command started. Only the supervisor writes the
journal (one JSON line per finished case, appended and flushed), so a worker
dying mid-case never leaves half a line; the worker reads it to skip the ops
that crashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

from workloads import xdg

STATE_ENV = "CARDBENCH_OPSCAN_STATE"
PLAN, RECORDING, JOURNAL = "plan.json", "recording.json", "journal.jsonl"
GIVE_UP = ("crash", "hang")      # after one of these an op's other calls in that dtype are not run
FP32_ONLY = ("fp32", "tf32")     # the dtypes an optimizer-only call is replayed in


def state_root() -> Path:
    return Path(os.environ.get(STATE_ENV) or xdg.cache_dir() / "opscan")


def cases_of(calls: Iterable[Any], dtypes: list[str]) -> list[tuple[int, str]]:
    """(call index, dtype) in scan order; an optimizer-only call only in fp32 (mixed precision keeps the
    optimizer's state and update in fp32, so its ops in fp16 are not what training runs)."""
    return [(i, d) for i, call in enumerate(calls) for d in dtypes
            if d in FP32_ONLY or not call.optimizer_only]


class ScanState:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def for_plan(cls, plan: dict[str, Any]) -> "ScanState":
        key = hashlib.sha256(json.dumps(plan, sort_keys=True).encode()).hexdigest()[:16]
        return cls(state_root() / key)

    def start(self, plan: dict[str, Any], resume: bool) -> bool:
        """Make the directory ready; returns whether an earlier scan's journal is kept (``--resume``)."""
        kept = resume and (self.path / JOURNAL).is_file()
        if not kept and self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_json(PLAN, plan)
        return kept

    def write_json(self, name: str, data: Any) -> None:
        tmp = self.path / f".{name}.tmp"
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.path / name)

    def plan(self) -> dict[str, Any]:
        return json.loads((self.path / PLAN).read_text())

    def recording(self) -> dict[str, Any] | None:
        path = self.path / RECORDING
        return json.loads(path.read_text()) if path.is_file() else None

    def rows(self) -> list[dict[str, Any]]:
        path = self.path / JOURNAL
        if not path.is_file():
            return []
        rows = []
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue  # a line cut by a power loss: that case runs again
        return rows

    def append(self, row: dict[str, Any]) -> None:
        with open(self.path / JOURNAL, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()

    def next_case(self) -> int:
        rows = self.rows()
        return max((r["case"] for r in rows), default=-1) + 1

    def given_up(self) -> set[tuple[str, str]]:
        return {(r["op"], r["dtype"]) for r in self.rows() if r.get("status") in GIVE_UP}
