"""A local or mounted destination: a snapshot is written under '.partial-<name>' and renamed once verified.

Unchanged files are hard links to the previous snapshot's (a copy where the filesystem has no links, as
some FUSE mounts): they cost no space, and a new backup never writes into a file an older one holds.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
from pathlib import Path

from tui.backup.errors import BackupError, full_line
from tui.backup.manifest import INDEX, LATEST, MANIFEST, Entry, file_sha256, index_text, manifest_bytes, parse_index
from tui.backup.snapshot import STAMP, LeftOut, Meter, copy_file, to_prune
from tui.backup.sources import SourceFile
from tui.files import write_atomically
from workloads import exit_codes
from workloads.safe_text import file_name

PARTIAL = ".partial-"
LOCK = ".cardbench-backup.lock"


class LocalDestination:
    def __init__(self, dest: str):
        self.dest = dest
        self.root = Path(dest).expanduser()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackupError(f"cardbench backup: cannot use {dest}: {exc.strerror or exc}", exit_codes.BAD_INPUT) from None
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise BackupError(f"cardbench backup: cannot write into {dest}", exit_codes.BAD_INPUT)
        self.work: Path | None = None
        self.carried = ""   # how unchanged files reached the new backup, for the result line
        self.previous: str | None = None
        self.private = False
        self.left_out: list[tuple[SourceFile, str]] = []   # listed, then not copied (gone, or now a link): why

    def hold(self) -> None:
        """One backup at a time into this folder: another one's unfinished snapshot is not ours to remove."""
        self._lock = open(self.root / LOCK, "a")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise BackupError(f"cardbench backup: another backup into {self.dest} is running; "
                              "try again when it has finished") from None

    def release(self) -> None:
        self._lock.close()

    # what is there ------------------------------------------------------------------------------------
    def complete(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if STAMP.match(p.name) and (p / INDEX).is_file())

    def taken(self) -> list[str]:
        return [p.name.removeprefix(PARTIAL) for p in self.root.iterdir()]

    def latest(self) -> tuple[str, dict[str, Entry]] | None:
        try:
            name = (self.root / LATEST).read_text(encoding="utf-8").strip()
            index = (self.root / name / INDEX).read_text(encoding="utf-8") if STAMP.match(name) else None
        except (OSError, UnicodeDecodeError):
            return None
        if index is None:
            return None
        self.previous = name
        return name, parse_index(index)

    def clean_partials(self) -> int:
        """Remove what interrupted backups left; the snapshots they did not finish were never named in LATEST."""
        left = [p for p in self.root.iterdir() if p.name.startswith(PARTIAL) and p.is_dir()]
        for path in left:
            shutil.rmtree(path, ignore_errors=True)
        return len(left)

    # one backup ---------------------------------------------------------------------------------------
    def begin(self, stamp: str, sending: int, private: bool = False) -> None:
        free = shutil.disk_usage(self.root).free
        if sending > free:
            raise BackupError(f"cardbench backup: {full_line(self.dest, f'{sending:,} bytes to send, {free:,} free', self.previous)}")
        self.work = self.root / f"{PARTIAL}{stamp}"
        self.work.mkdir(mode=0o700)   # the snapshot keeps this mode when renamed: others may enter only if allowed
        self.private = private
        if not private:
            self.work.chmod(0o755)

    def send(self, files: list[SourceFile], meter: Meter) -> dict[str, Entry]:
        assert self.work is not None
        meter.phase("copying")
        out = {}
        for source in files:
            try:
                out[source.rel] = copy_file(source, self.work / source.rel, meter)
            except LeftOut as why:
                self.left_out.append((source, str(why)))
            except OSError as exc:
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise BackupError(f"cardbench backup: {full_line(self.dest, exc.strerror, self.previous)}") from None
                if exc.filename and Path(exc.filename) in (source.path, source.real):
                    raise BackupError(f"cardbench backup: cannot read {file_name(source.path)}: {exc.strerror}") from None
                raise BackupError(f"cardbench backup: cannot write into {self.dest}: {exc.strerror or exc}") from None
        return out

    def carry(self, previous: str, rels: list[str]) -> None:
        assert self.work is not None
        self.carried = "hard-linked to the previous backup"
        for rel in rels:
            old, new = self.root / previous / rel, self.work / rel
            new.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(old, new)
            except OSError:
                shutil.copy2(old, new)   # no hard links here: a copy within the destination
                self.carried = "copied within the destination (it takes no hard links)"

    def finish(self, stamp: str, entries: dict[str, Entry], sent: set[str], created: float,
               download: bool = True) -> str:
        """Manifest, verification, index; then the rename and LATEST make it the backup. Returns what was verified."""
        assert self.work is not None
        (self.work / MANIFEST).write_bytes(manifest_bytes(entries))
        for rel, entry in entries.items():
            path = self.work / rel
            size = path.stat().st_size
            if size != entry.size:
                raise BackupError(f"cardbench backup: verification failed: {file_name(rel)} is {size:,} bytes in the backup, "
                                  f"{entry.size:,} sent")
            if download and rel in sent and file_sha256(path)[0] != entry.sha256:
                raise BackupError(f"cardbench backup: verification failed: {file_name(rel)} reads back with another SHA-256")
        (self.work / INDEX).write_text(index_text(entries, created), encoding="utf-8")
        if self.private:   # every folder, not only the top: a restore with `cp -a` keeps them closed too
            for folder, names, _ in os.walk(self.work):
                for name in names:
                    os.chmod(os.path.join(folder, name), 0o700)
        final = self.root / stamp
        os.replace(self.work, final)
        self.work = None
        _write_atomically(self.root / LATEST, stamp + "\n")
        return f"sizes of all {len(entries)} files, " + (f"SHA-256 of the {len(sent)} sent read back" if download
                                                         else "no SHA-256 read back (--verify sizes)")

    def abandon(self) -> None:
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None

    def prune(self, keep: int, latest: str) -> list[str]:
        old = to_prune(self.complete(), latest, keep)
        for name in old:
            # the index first: a removal cut short leaves a folder that no longer reads as a complete backup
            (self.root / name / INDEX).unlink(missing_ok=True)
            shutil.rmtree(self.root / name, ignore_errors=True)
        return old

    def restore_hint(self, stamp: str) -> str:
        return f"mkdir DIR && cp -a {self.root / stamp}/. DIR/ && cd DIR && sha256sum -c --quiet {MANIFEST}"


def _write_atomically(path: Path, text: str) -> None:
    write_atomically(path, text, mode=0o644, fsync=True)   # mkstemp's 0600 would hide it from whoever restores
