"""What a backup holds: the run store, the checkpoint folders the runs name, report bundles and --include paths.

Each file gets its name in the backup (``runs/<run id>/events.jsonl``, ``checkpoints/<absolute path>``...),
so a restore puts every file where its category and its origin say, and two sources never collide.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

# a checkpoint being written (workloads/resnet50/checkpoint.py saves through '<name>.<pid>.partial' and
# renames) and the lock a run holds on its folder (checkpoint_lock.LOCK_NAME): neither is a checkpoint
_NOT_CHECKPOINTS = (".partial", ".lock")
REPORT_GLOB = "cardbench-report-*.zip"


@dataclass(frozen=True)
class SourceFile:
    rel: str        # its name in the backup
    path: Path      # where it is on this machine
    kind: str       # runs, checkpoints, reports, include


@dataclass
class Gathered:
    files: list[SourceFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # what was left out, and why: one line each

    def count(self, kind: str) -> int:
        return sum(1 for f in self.files if f.kind == kind)


class SourceError(Exception):
    """An --include path that does not exist; one line for the user."""


def _walk(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_file():   # a socket, a FIFO or a dangling link is not backed up
                yield path


def _mirror(kind: str, path: Path) -> str:
    return f"{kind}/{path.resolve().as_posix().lstrip('/')}"


def _checkpoint_dirs(runs_root: Path) -> Iterator[tuple[str, Path | None, str]]:
    """(run id, folder or None when it cannot be found, the folder as the run named it) for each run's --checkpoint."""
    for config in sorted(runs_root.glob("*/config.json")):
        try:
            args = json.loads(config.read_text(encoding="utf-8")).get("args")
        except (OSError, ValueError, AttributeError):
            continue
        if not isinstance(args, list):
            continue
        for i, arg in enumerate(args):
            named = None
            if arg == "--checkpoint" and i + 1 < len(args):
                named = args[i + 1]
            elif isinstance(arg, str) and arg.startswith("--checkpoint="):
                named = arg.split("=", 1)[1]
            if isinstance(named, str) and named:
                # the run store records no working directory: a relative folder is looked for from here and
                # from beside the runs dir (where the default ./cardbench-runs puts a run's working directory)
                candidates = [Path(named).expanduser()] if Path(named).is_absolute() else \
                    [Path.cwd() / named, runs_root.resolve().parent / named]
                found = next((c for c in candidates if c.is_dir()), None)
                yield config.parent.name, found, named


def gather(runs_root: Path, includes: Iterable[str | os.PathLike[str]] = (), report_dirs: Iterable[Path] | None = None,
           exclude: Iterable[Path] = ()) -> Gathered:
    """Everything to back up. ``exclude``: folders never read (a local destination, the staging folder)."""
    out = Gathered()
    skip = [p.resolve() for p in exclude]
    seen: set[Path] = set()

    def add(kind: str, path: Path, rel: str) -> None:
        real = path.resolve()
        if real in seen or any(real == s or s in real.parents for s in skip):
            return
        if "\n" in rel or "\\" in rel:   # sha256sum -c would read such a name escaped
            out.notes.append(f"left out {path!s:.200}: its name holds a newline or a backslash")
            return
        seen.add(real)
        # absolute: the next backup's quick check matches it whichever folder that one is started from
        out.files.append(SourceFile(rel, path.absolute(), kind))

    paths = [Path(p).expanduser() for p in includes]
    for path in paths:
        if not path.exists():
            raise SourceError(f"--include {path}: no such file or folder")
    if runs_root.is_dir():
        for path in _walk(runs_root):
            add("runs", path, "runs/" + path.relative_to(runs_root).as_posix())
        for run_id, folder, named in _checkpoint_dirs(runs_root):
            if folder is None:
                out.notes.append(f"run {run_id}: its --checkpoint {named} is not here; not backed up")
                continue
            for path in _walk(folder):
                if not path.name.endswith(_NOT_CHECKPOINTS):
                    add("checkpoints", path, _mirror("checkpoints", path))
    else:
        out.notes.append(f"no runs dir at {runs_root}; no runs backed up")
    for folder in (report_dirs if report_dirs is not None else (Path.cwd(), Path.cwd() / "reports")):
        for path in sorted(folder.glob(REPORT_GLOB)):
            if path.is_file():
                add("reports", path, _mirror("reports", path))
    for root in paths:
        for path in _walk(root):
            add("include", path, _mirror("include", path))
    return out
