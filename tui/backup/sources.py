"""What a backup holds: the run store, the checkpoint folders the runs name, report bundles and --include paths.

Each file gets its name in the backup (``runs/<run id>/events.jsonl``, ``checkpoints/<absolute path>``...),
so a restore puts every file where its category and its origin say, and two sources never collide.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from workloads.rundir import CONFIG
from workloads.rundir.read import read_config
from workloads.safe_text import file_name

# a checkpoint being written (workloads/resnet50/checkpoint.py saves through '<name>.<pid>.partial' and
# renames) and the lock a run holds on its folder (checkpoint_lock.LOCK_NAME): neither is a checkpoint
_NOT_CHECKPOINTS = (".partial", ".lock")
REPORT_GLOB = "cardbench-report-*.zip"


@dataclass(frozen=True)
class SourceFile:
    rel: str        # its name in the backup
    path: Path      # where it is on this machine
    kind: str       # runs, checkpoints, reports, include
    real: Path | None = None   # where it was, no link in the way, when listed: the copy reads that file or none


@dataclass
class Gathered:
    files: list[SourceFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # what was left out, and why: one line each
    private: bool = False   # a folder among the sources that others cannot list or enter
    links: list[Path] = field(default_factory=list)   # symbolic links left out, for the summary

    def count(self, kind: str) -> int:
        return sum(1 for f in self.files if f.kind == kind)

    def leave_out_link(self, path: Path) -> None:
        self.links.append(path)
        self.notes.append(_link_note(path))


class SourceError(Exception):
    """A source that cannot be backed up as asked (an --include path that does not exist, one inside DEST);
    one line for the user."""


def _walk(root: Path, out: Gathered) -> Iterator[Path]:
    """The regular files under ``root`` (or ``root`` itself, a file the user named). A symbolic link inside is
    never followed (restic's and rsync's habit): a link to /etc/shadow or a planted credentials file would
    copy its target's contents out of the tree it was asked to save. Each one left out is named in the notes."""
    if root.is_file():
        yield root
        return
    for folder, dirs, names in os.walk(root):   # followlinks=False: a linked folder is listed, not entered
        _note_private(Path(folder), out)
        dirs.sort()
        for name in sorted(dirs):
            if os.path.islink(os.path.join(folder, name)):
                out.leave_out_link(Path(folder) / name)
        for name in sorted(names):
            path = Path(folder) / name
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue   # gone since it was listed (a live run's temporary file)
            if stat.S_ISLNK(mode):
                out.leave_out_link(path)
            elif stat.S_ISREG(mode):   # a socket or a FIFO is not backed up
                yield path


def _note_private(folder: Path, out: Gathered) -> None:
    """A folder others cannot list or enter keeps its files from them, whatever the files' own modes say."""
    try:
        out.private = out.private or (folder.stat().st_mode & 0o005) != 0o005
    except OSError:
        pass


def _link_note(path: Path) -> str:
    try:
        target = file_name(os.readlink(path))
    except OSError:
        target = "?"
    return f"left out {file_name(path)}: a symbolic link (to {target}), not followed"


def _mirror(kind: str, path: Path) -> str:
    return f"{kind}/{path.resolve().as_posix().lstrip('/')}"


def _checkpoint_dirs(runs_root: Path) -> Iterator[tuple[str, Path | None, str]]:
    """(run id, folder or None when it cannot be found, the folder as the run named it) for each run's --checkpoint."""
    for config in sorted(runs_root.glob(f"*/{CONFIG}")):
        args = read_config(config.parent, []).get("args")   # a list, or left out as a problem: none here
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


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def gather(runs_root: Path, includes: Iterable[str | os.PathLike[str]] = (), report_dirs: Iterable[Path] | None = None,
           exclude: Iterable[Path] = (), dest: Path | None = None) -> Gathered:
    """Everything to back up. ``exclude``: folders never read (the staging folder). ``dest``: a local destination,
    never read either; a source inside it is refused (the backup would leave it out), one around it is saved
    without it."""
    out = Gathered()
    into = dest.resolve() if dest is not None else None
    skip = [p.resolve() for p in exclude] + ([into] if into is not None else [])
    seen: set[Path] = set()

    def refuse_inside_dest(what: str, path: Path) -> None:
        if into is not None and _within(path.resolve(), into):
            raise SourceError(f"DEST {file_name(dest)} holds {what} {file_name(path)}: the backup would leave it out; "
                              "choose a folder beside it")

    def add(kind: str, path: Path, rel: str) -> None:
        real = path.resolve()
        if real in seen or any(_within(real, s) for s in skip):
            return
        seen.add(real)
        # absolute: the next backup's quick check matches it whichever folder that one is started from
        out.files.append(SourceFile(rel, path.absolute(), kind, real))

    paths = [Path(p).expanduser() for p in includes]
    for path in paths:
        if not path.exists():
            raise SourceError(f"--include {file_name(path)}: no such file or folder")
        refuse_inside_dest("--include", path)
    if runs_root.is_dir():
        for path in _walk(runs_root, out):
            add("runs", path, "runs/" + path.relative_to(runs_root).as_posix())
        for run_id, folder, named in _checkpoint_dirs(runs_root):
            if folder is None:
                out.notes.append(f"run {file_name(run_id)}: its --checkpoint {file_name(named)} is not here; not backed up")
                continue
            refuse_inside_dest(f"the --checkpoint folder of run {file_name(run_id)},", folder)
            for path in _walk(folder, out):
                if not path.name.endswith(_NOT_CHECKPOINTS):
                    add("checkpoints", path, _mirror("checkpoints", path))
    else:
        out.notes.append(f"no runs dir at {file_name(runs_root)}; no runs backed up")
    for folder in (report_dirs if report_dirs is not None else (Path.cwd(), Path.cwd() / "reports")):
        for path in sorted(folder.glob(REPORT_GLOB)):
            if path.is_symlink():
                out.leave_out_link(path)
            elif path.is_file():
                refuse_inside_dest("the report bundle", path)
                _note_private(folder, out)
                add("reports", path, _mirror("reports", path))
    for root in paths:
        for path in _walk(root, out):
            add("include", path, _mirror("include", path))
    return out
