"""A cold start's order, as the workload's process runs it (torch-free): prepare, drop the page cache, measure.

1. A preparing child (untimed) resolves the device, picks the dtype and, for a preset, writes its random weights to a
   scratch file in a temporary directory (removed at the end), so that there is a file to read; the workload's
   process itself never imports torch, so it holds neither a model nor a context on the card.
2. The weights' pages are dropped from the page cache (`page_cache.drop`), or read once for ``--cold-start warm``.
3. The measured child, a fresh process, stamps each phase (`workloads.cold_start.child`); `split` makes the figures.

A child that fails leaves its error in :attr:`ColdStart.error`: the workload sends what was measured, then says it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from workloads.child.harness import WorkloadError, log
from workloads.cold_start import page_cache, split
from workloads.cold_start.spawn import run_child
from workloads.facts.formatting import format_bytes
from workloads.models.checkpoint_files import weights_files

SCRATCH_NAME = "preset_weights.pt"
SCRATCH_PREFIX = "cardbench-cold-start-"   # then the writing process's pid and "-": a dead one's is swept


def _scratch_parent() -> str | None:
    """Where a preset's weights are written: $TMPDIR when set, else /var/tmp (on the disk by convention; /tmp is
    often tmpfs, whose pages are memory and cannot be read cold)."""
    if os.environ.get("TMPDIR"):
        return None   # tempfile's choice: $TMPDIR
    return "/var/tmp" if os.path.isdir("/var/tmp") and os.access("/var/tmp", os.W_OK) else None


def sweep_stale(parent: Path) -> list[Path]:
    """The scratch directories a killed cold start left (its process gone: no one removed its weights, 16 GB for an
    8B preset) removed from ``parent``; those removed. Another user's, or a live process's, are left alone."""
    removed = []
    for entry in parent.glob(SCRATCH_PREFIX + "*"):
        pid = entry.name[len(SCRATCH_PREFIX):].split("-", 1)[0]
        try:
            if not pid.isdigit() or entry.is_symlink() or entry.stat().st_uid != os.geteuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:   # the writer is gone
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
        except OSError:   # alive under another user, or unreadable: not ours to remove
            continue
    return removed


class ColdStart:
    """One cold start of ``module`` (the workload's child entry) for ``request`` (what the child builds and runs)."""

    def __init__(self, module: str, request: dict[str, Any], weights_dir: Path | None, read: str = "cold"):
        self.module, self.request, self.weights_dir, self.read = module, dict(request), weights_dir, read
        self.request["weights_dir"] = str(weights_dir) if weights_dir is not None else None
        self.scratch: Path | None = None
        self.prepared: dict[str, Any] = {}
        self.error: str | None = None
        self.notes: dict[str, Any] = {}   # what the measured child said besides its stamps (its first output)

    def __enter__(self) -> "ColdStart":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def prepare(self) -> dict[str, Any]:
        """The preparing child's notes: device, device_name, versions, dtype (and written_bytes for a preset)."""
        request = {**self.request, "role": "prepare"}
        if self.weights_dir is None:
            parent = _scratch_parent() or tempfile.gettempdir()
            sweep_stale(Path(parent))
            self.scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=parent))
            request["write"] = str(self.scratch / SCRATCH_NAME)
        stamps = run_child(self.module, request)
        if stamps.error is not None:
            raise WorkloadError(f"cold start: preparing failed: {stamps.error}", bad_input=False)
        self.prepared = stamps.notes
        if self.scratch is not None:
            log(f"cold start: the preset's random weights written to {request['write']} "
                f"({format_bytes(stamps.notes.get('written_bytes'))}), to be read as a checkpoint would be; "
                "removed at the end")
        return self.prepared

    def files(self) -> list[Path]:
        if self.weights_dir is not None:
            return weights_files(self.weights_dir)
        assert self.scratch is not None, "prepare() first"
        return [self.scratch / SCRATCH_NAME]

    def measure(self) -> dict[str, Any]:
        """The measured child run from a fresh process; the cold start's figures (None for a phase not reached)."""
        files = self.files()
        state = page_cache.warm(files) if self.read == "warm" else page_cache.drop(files)
        log(f"cold start: the weights' read will be {state.state} ({state.reason})")
        request = {**self.request, "role": "measure", "device": self.prepared.get("device"),
                   "dtype": self.prepared.get("dtype")}
        if self.scratch is not None:
            request["weights_file"] = str(files[0])
        stamps = run_child(self.module, request)
        self.error, self.notes = stamps.error, stamps.notes
        figures = split.figures(stamps, state, sum(f.stat().st_size for f in files))
        started = split.interpreter_s(stamps)
        if started is not None:
            log(f"cold start: the interpreter ran the child's first line {started:.3f} s after the start")
        return figures


def said(error: str | None, lines: list[str]) -> int:
    """After the result is sent: its table to the log, then the child's failure (what it measured is already sent)."""
    for line in lines:
        log(line)
    if error is not None:
        raise WorkloadError(f"cold start: {error}", hint="the phases before it are in the result", bad_input=False)
    return 0
