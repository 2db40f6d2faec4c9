"""An rclone remote destination: changed files are staged locally, sent with `rclone copy`, checked, then named.

Staging copies each changed file while hashing it, so the sum in the manifest is of the bytes sent even
when a run is still appending to its files. Unchanged files are copied from the previous snapshot on the
remote (`--files-from`; server-side where the back end can, as object stores do). A snapshot is complete
once its index is there (written after verification); LATEST is written after that, so an interrupted
backup leaves LATEST naming the previous one, and the next backup removes the unfinished folder.
"""

from __future__ import annotations

import fcntl
import json
import shlex
import shutil
import tempfile
from pathlib import Path

from tui.backup.errors import BackupError
from tui.backup.manifest import INDEX, LATEST, MANIFEST, Entry, index_text, manifest_bytes, parse_index, parse_manifest
from tui.backup.rclone import Rclone, join
from tui.backup.snapshot import STAMP, LeftOut, Meter, OnBytes, copy_file, to_prune
from tui.backup.sources import SourceFile
from workloads.safe_text import file_name


STAGING_PREFIX = "cardbench-backup-"
STAGING_LOCK = ".lock"


def unsendable(rel: str) -> str | None:
    """Why a name cannot go to a remote as it is, or None. rclone's file lists (--files-from-raw) are lines
    and its remotes hold UTF-8 names: a local destination keeps such a name as bytes, a remote cannot."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not UTF-8, which an rclone remote cannot hold as it is (a folder destination keeps it)"
    if any(c in rel for c in "\n\r\\"):
        return "its name holds a newline or a backslash, which rclone's file lists cannot carry"
    return None


# rclone's --metadata: object storage (S3, OSS, COS, OBS) keeps each file's mode (and time and owner) beside it,
# through the server-side copy of unchanged files too, and `rclone copy -M` puts it back on restore; a back end
# without metadata (WebDAV) takes the flag and keeps nothing, which the restore's umask then covers
METADATA = "--metadata"


class RemoteDestination:
    def __init__(self, dest: str, staging: str | None = None):
        self.dest = dest.rstrip("/") if not dest.endswith(":") else dest
        self.previous: str | None = None
        self.rclone = Rclone(self.dest, previous=lambda: self.previous)
        self.rclone.check_remote()
        self.staging_root = Path(staging) if staging else Path(tempfile.gettempdir())
        self.staging: Path | None = None
        self.stamp: str | None = None
        self.carried = ""   # how unchanged files reached the new backup, for the result line
        self.left_out: list[tuple[SourceFile, str]] = []   # listed, then not staged (gone, or now a link): why
        self.private = False

    def hold(self) -> None:
        """Nothing to lock on a remote: two backups at once into one prefix are the user's to avoid (README)."""

    def release(self) -> None:
        self._drop_staging()

    # what is there ------------------------------------------------------------------------------------
    def _listing(self, *args: str) -> list[dict]:
        done = self.rclone.call(["lsjson", self.dest, *args], missing_ok=True)
        return [] if done.returncode else json.loads(done.stdout or "[]")

    def taken(self) -> list[str]:
        return [item["Name"] for item in self._listing("--dirs-only") if STAMP.match(item["Name"])]

    def complete(self) -> list[str]:
        found = self._listing("-R", "--max-depth", "2", "--files-only", "--include", f"/*/{INDEX}")
        return sorted({item["Path"].split("/")[0] for item in found} & set(self.taken()))

    def latest(self) -> tuple[str, dict[str, Entry]] | None:
        name = (self.rclone.cat(LATEST) or "").strip()
        index = self.rclone.cat(f"{name}/{INDEX}") if STAMP.match(name) else None
        if index is None:
            return None
        self.previous = name
        return name, parse_index(index)

    def clean_partials(self) -> int:
        complete = set(self.complete())
        left = [name for name in self.taken() if name not in complete]
        for name in left:
            self.rclone.call(["purge", join(self.dest, name)], missing_ok=True)
        return len(left)

    # one backup ---------------------------------------------------------------------------------------
    def begin(self, stamp: str, sending: int, private: bool = False) -> None:
        # the staging folder is mkdtemp's (0700) whatever ``private`` says; the restore hint carries ``private``
        self.private = private
        try:
            self.staging_root.mkdir(parents=True, exist_ok=True)
            _drop_dead_staging(self.staging_root)
            free = shutil.disk_usage(self.staging_root).free
            if sending > free:
                raise BackupError(f"cardbench backup: {sending:,} bytes to send need staging space in "
                                  f"{self.staging_root}, which has {free:,} free; choose another with --staging DIR")
            self.staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.staging_root))
            self._lock = open(self.staging / STAGING_LOCK, "a")
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise BackupError(f"cardbench backup: cannot stage files in {self.staging_root}: {exc.strerror or exc}") from None
        self.stamp = stamp

    def send(self, files: list[SourceFile], meter: Meter) -> dict[str, Entry]:
        assert self.staging is not None
        meter.phase("staging")
        files_dir = self.staging / "files"
        out = {}
        for source in files:
            try:
                out[source.rel] = copy_file(source, files_dir / source.rel, meter)
            except LeftOut as why:
                self.left_out.append((source, str(why)))
            except OSError as exc:
                raise BackupError(f"cardbench backup: cannot stage {file_name(source.path)} in {self.staging_root}: "
                                  f"{exc.strerror or exc}") from None
        if out:
            meter.phase("uploading")
            self.rclone.copy([str(files_dir), join(self.dest, self.stamp), "--no-traverse", METADATA],
                             _progress(meter))
        return out

    def carry(self, previous: str, rels: list[str]) -> None:
        if not rels:
            return
        done = self.rclone.call(["backend", "features", self.dest])
        server_side = bool(json.loads(done.stdout or "{}").get("Features", {}).get("Copy"))
        self.carried = ("copied server-side from the previous backup" if server_side else
                        "copied from the previous backup through this machine: the remote has no server-side copy")
        listed = self._list_file("carry", rels)
        self.rclone.copy([join(self.dest, previous), join(self.dest, self.stamp), "--files-from-raw", str(listed),
                          "--no-traverse", METADATA], lambda done, total: None)

    def _list_file(self, name: str, rels: list[str]) -> Path:
        assert self.staging is not None
        path = self.staging / f"{name}.list"
        path.write_text("".join(f"{rel}\n" for rel in rels), encoding="utf-8")
        return path

    def finish(self, stamp: str, entries: dict[str, Entry], sent: set[str], created: float,
               download: bool = True) -> str:
        """``download``: read the files sent back and hash them (as much traffic again as the upload)."""
        text = manifest_bytes(entries).decode("utf-8")   # unsendable() kept every other name off a remote
        self.rclone.put_text(join(stamp, MANIFEST), text)
        # verification: the manifest read back, every size listed, and the files sent downloaded and hashed
        if self.rclone.cat(join(stamp, MANIFEST)) != text:
            raise BackupError(f"cardbench backup: verification failed: {MANIFEST} reads back different from {self.dest}")
        listed = {item["Path"]: item["Size"] for item in self._listing_of(stamp)}
        for rel, entry in entries.items():
            if listed.get(rel) != entry.size:
                raise BackupError(f"cardbench backup: verification failed: {file_name(rel)} is "
                                  f"{'missing' if rel not in listed else f'{listed[rel]:,} bytes'} on the remote, "
                                  f"{entry.size:,} sent")
        if sent and download:
            done = self.rclone.call(["hashsum", "sha256", "--download", join(self.dest, stamp),
                                     "--files-from-raw", str(self._list_file("sent", sorted(sent)))])
            read_back = parse_manifest(done.stdout)
            for rel in sent:
                if read_back.get(rel) != entries[rel].sha256:
                    raise BackupError(f"cardbench backup: verification failed: {file_name(rel)} downloads with another "
                                      "SHA-256")
        self.rclone.put_text(join(stamp, INDEX), index_text(entries, created))
        self.rclone.put_text(LATEST, stamp + "\n")
        return (f"{MANIFEST} read back, sizes of all {len(entries)} files listed, "
                + (f"SHA-256 of the {len(sent)} sent downloaded" if download else "nothing downloaded (--verify sizes)"))

    def _listing_of(self, stamp: str) -> list[dict]:
        done = self.rclone.call(["lsjson", "-R", "--files-only", join(self.dest, stamp)])
        return json.loads(done.stdout or "[]")

    def abandon(self) -> None:
        # the unfinished folder on the remote stays until the next backup removes it: a Ctrl+C is not
        # kept waiting on the network, and LATEST still names the previous backup
        self._drop_staging()

    def _drop_staging(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self._lock.close()
            self.staging = None

    def prune(self, keep: int, latest: str) -> list[str]:
        self._drop_staging()
        old = to_prune(self.complete(), latest, keep)
        for name in old:
            # the index first: a removal cut short leaves a folder that no longer reads as a complete backup
            self.rclone.call(["deletefile", join(self.dest, name, INDEX)], missing_ok=True)
            self.rclone.call(["purge", join(self.dest, name)], missing_ok=True)
        return old

    def restore_hint(self, stamp: str) -> str:
        """-M puts each file's mode back where the remote kept it; a private backup is restored under umask 077,
        so its folders are 0700 and, where the remote kept no modes, its files 0600. rclone is named by its path:
        the one beside this Python is on no PATH once the venv is not activated."""
        copy = f"{shlex.quote(self.rclone.exe)} copy -M {shlex.quote(join(self.dest, stamp))} DIR"
        return (f"umask 077 && {copy}" if self.private else copy) + f" && cd DIR && sha256sum -c --quiet {MANIFEST}"


def _drop_dead_staging(root: Path) -> None:
    """Staged files of a backup whose process is gone (killed, the session dropped): they would fill the disk.
    A live backup holds the lock in its staging folder; the kernel lets it go when the process dies."""
    for path in root.glob(f"{STAGING_PREFIX}*"):
        try:
            with open(path / STAGING_LOCK, "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue   # held: a backup running now (or not ours to judge)
        shutil.rmtree(path, ignore_errors=True)


def _progress(on_bytes: OnBytes):
    """rclone's running totals as the increments ``on_bytes`` counts."""
    seen = [0]

    def each(done: int, total: int) -> None:
        if done > seen[0]:
            on_bytes(done - seen[0])
            seen[0] = done
    return each

