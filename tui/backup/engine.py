"""One backup: compare with the previous snapshot, send what changed, carry what did not, verify, name it.

Both `cardbench backup` and the workbench's `b` key run :func:`run_backup`; a progress callback gets the
phase (copying; for a remote staging, then uploading) and its bytes done and to do. Any failure, a Ctrl+C included, abandons the new snapshot and leaves the previous
one as the backup (LATEST is written only after verification).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from tui.backup.errors import BackupError
from tui.backup.manifest import Entry
from tui.backup.rclone import is_remote
from tui.backup.snapshot import Meter, Progress, is_private, new_stamp
from tui.backup.sources import Gathered, SourceError, SourceFile, gather
from workloads.facts.formatting import format_bytes
from workloads.safe_text import file_name

LINKS_SHOWN = 5   # in the summary; every one is named in the notes before the copy


@dataclass
class BackupResult:
    dest: str
    snapshot: str
    previous: str | None
    files: int
    size: int
    sent: int
    sent_bytes: int
    unchanged: int
    unchanged_bytes: int
    verified: str
    restore: str
    carried: str = ""   # how the unchanged files reached the new backup
    pruned: list[str] = field(default_factory=list)
    cleaned: int = 0   # unfinished snapshots of interrupted backups removed first
    left_out: list[tuple[str, str]] = field(default_factory=list)   # listed, then not copied: (shown name, why)
    links: list[str] = field(default_factory=list)   # symbolic links not followed (shown names)

    def lines(self) -> list[str]:
        previous = f" (previous: {self.previous})" if self.previous else ""
        how = f", {self.carried}" if self.carried and self.unchanged else ""
        out = [f"backup: {_counted(self.sent, 'file')} sent ({format_bytes(self.sent_bytes)}), {self.unchanged} "
               f"unchanged not sent ({format_bytes(self.unchanged_bytes)}{how}); {_counted(self.files, 'file')}, "
               f"{format_bytes(self.size)} in all",
               f"backup: verified: {self.verified}",
               f"backup: done: {self.snapshot} in {self.dest}{previous}"]
        if self.links:   # named one by one before the copy; the summary is read alone too (a log, a cron mail)
            shown = ", ".join(self.links[:LINKS_SHOWN]) + (f" and {len(self.links) - LINKS_SHOWN} more"
                                                          if len(self.links) > LINKS_SHOWN else "")
            out.append(f"backup: {_counted(len(self.links), 'symbolic link')} not followed, not in this backup: {shown}")
        for name, why in self.left_out:
            out.append(f"backup: {name} {why}; not in this backup")
        if self.cleaned:
            out.append(f"backup: removed {self.cleaned} unfinished backup(s) left by an interruption")
        if self.pruned:
            out.append(f"backup: removed older backups {', '.join(self.pruned)} (--keep)")
        out.append(f"backup: restore with: {self.restore}")
        return out


def _counted(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def open_destination(dest: str, staging: str | None = None):
    if is_remote(dest):
        from tui.backup.remote import RemoteDestination

        return RemoteDestination(dest, staging)
    from tui.backup.local import LocalDestination

    return LocalDestination(dest)


def sources_for(target, runs_root: Path, includes: Iterable[str] = (), staging: str | None = None,
                report_dirs: Iterable[Path] | None = None) -> Gathered:
    """What to back up to ``target``: never a local destination into itself, nor the staging folder."""
    gathered = gather(runs_root, includes, report_dirs=report_dirs, exclude=[Path(staging)] if staging else [],
                      dest=getattr(target, "root", None))
    if not hasattr(target, "root"):   # a remote
        from tui.backup.remote import unsendable

        kept = []
        for source in gathered.files:
            why = unsendable(source.rel)
            if why:
                gathered.notes.append(f"left out {file_name(source.path)}: {why}")
            else:
                kept.append(source)
        gathered.files = kept
    return gathered


def check_dest(dest: str, runs_root: Path) -> None:
    """A folder destination must lie outside the runs dir and hold no part of it: a backup into the tree it saves
    would back itself up, and one around the runs dir would leave the runs out (a destination is never read)."""
    if is_remote(dest):
        return
    where = Path(dest).expanduser().resolve()
    runs = runs_root.expanduser().resolve()
    if where == runs or runs in where.parents:
        raise SourceError(f"DEST {file_name(dest)} is inside the runs dir {file_name(runs)}: a backup there would "
                          "back itself up; choose a folder outside it")
    if where in runs.parents:
        raise SourceError(f"DEST {file_name(dest)} holds the runs dir {file_name(runs)}: the backup would leave the "
                          "runs out; choose a folder beside it")


def _unchanged(source: SourceFile, before: Entry | None) -> bool:
    """rsync's quick check: the same file, the same size and modification time as when it was last sent; and the
    same mode (a chmod changes no time, and a hard link to the previous copy, or a server-side copy of an object
    with its metadata, would keep the old, wider mode)."""
    if before is None or before.source != str(source.path):
        return False
    try:
        stat = source.path.stat()
    except OSError:
        return False
    return (stat.st_size == before.size and stat.st_mtime_ns == before.mtime_ns
            and before.mode == stat.st_mode & 0o777)


def run_backup(dest: str, gathered: Gathered, *, keep: int = 2, staging: str | None = None,
               progress: Progress | None = None, clock: Callable[[], float] = time.time,
               destination=None, verify: str = "full") -> BackupResult:
    """``verify``: "full" reads back (downloads, for a remote) and hashes what was sent; "sizes" only lists sizes."""
    if not gathered.files:
        # an empty backup would become LATEST and, past --keep, push a real one out
        raise BackupError("cardbench backup: nothing to back up here (no runs dir, checkpoints or report bundles; "
                          "--runs-dir DIR or --include PATH)")
    target = destination or open_destination(dest, staging)
    target.hold()
    try:
        return _run(dest, gathered, target, keep, progress, clock, verify == "full")
    finally:
        target.release()


def _run(dest: str, gathered: Gathered, target, keep: int, progress: Progress | None,
         clock: Callable[[], float], download: bool) -> BackupResult:
    cleaned = target.clean_partials()
    previous = target.latest()
    prev_name, prev_entries = previous if previous else (None, {})
    to_send = [f for f in gathered.files if not _unchanged(f, prev_entries.get(f.rel))]
    to_carry = [f.rel for f in gathered.files if f.rel not in {s.rel for s in to_send}]
    sending = sum(_size_of(f) for f in to_send)
    meter = Meter(sending, progress)
    stamp = new_stamp(clock(), target.taken())
    target.begin(stamp, sending, private=gathered.private or is_private(gathered.files))
    try:
        entries = target.send(to_send, meter)
        to_send = [f for f in to_send if f.rel in entries]   # those left out (gone, now a link) are not in it
        if prev_name:
            target.carry(prev_name, to_carry)
        entries.update({rel: prev_entries[rel] for rel in to_carry})
        verified = target.finish(stamp, entries, set(e for e in entries if e not in to_carry), clock(), download)
    except BaseException:
        target.abandon()
        raise
    pruned = target.prune(keep, stamp)
    sent_bytes = sum(entries[f.rel].size for f in to_send)
    return BackupResult(dest=dest, snapshot=stamp, previous=prev_name, files=len(entries),
                        size=sum(e.size for e in entries.values()), sent=len(to_send), sent_bytes=sent_bytes,
                        unchanged=len(to_carry), unchanged_bytes=sum(prev_entries[r].size for r in to_carry),
                        verified=verified, restore=target.restore_hint(stamp), carried=target.carried,
                        pruned=pruned, cleaned=cleaned,
                        left_out=[(file_name(f.path), why) for f, why in target.left_out],
                        links=[file_name(path) for path in gathered.links])


def _size_of(source: SourceFile) -> int:
    try:
        return source.path.stat().st_size
    except OSError:
        return 0   # gone since it was listed: the copy notes it and goes on
