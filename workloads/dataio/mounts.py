"""Where a path lives: its mount from /proc/self/mountinfo (the one reader of it), the kind of storage that
mount is, and its free space. Torch-free: the doctor's quick check uses it too.

mountinfo's fields are documented in proc(5): ``id parent major:minor root mount-point options [optional...] -
fstype source super-options``; a space in a path is written ``\\040``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

MOUNTINFO = "/proc/self/mountinfo"

# filesystem type -> what a reader of the verdict calls it; anything else is named by its type alone
NETWORK = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "lustre", "9p", "virtiofs", "beegfs",
           "gpfs", "afs", "davfs")
MEMORY = ("tmpfs", "ramfs")
LOCAL = ("ext4", "ext3", "ext2", "xfs", "btrfs", "zfs", "f2fs", "vfat", "exfat", "ntfs", "ntfs3", "reiserfs", "jfs")
OVERLAY = ("overlay", "aufs", "fuse-overlayfs")


@dataclass(frozen=True)
class Mount:
    point: str
    fs_type: str
    source: str

    @property
    def kind(self) -> str:
        """'memory', 'local', 'network', 'fuse', 'overlay' or 'other'."""
        t = self.fs_type
        if t in MEMORY:
            return "memory"
        if t in OVERLAY:
            return "overlay"
        if t in NETWORK or t.startswith("nfs"):
            return "network"
        if t == "fuse" or t.startswith("fuse."):
            return "fuse"
        if t in LOCAL:
            return "local"
        return "other"

    def describe(self) -> str:
        """'ext4 on /dev/nvme0n1p1 (local NVMe) at /data'."""
        words = {"memory": "in memory", "overlay": "a container's overlay", "network": "a network filesystem",
                 "fuse": "a FUSE mount (object storage or a remote, often)", "other": "storage of this type"}
        what = words.get(self.kind, "")
        if self.kind == "local":
            what = "local NVMe" if "nvme" in self.source else (
                "a virtual disk (a cloud volume, often)" if self.source.startswith(("/dev/vd", "/dev/xvd"))
                else "a local disk")
        return f"{self.fs_type} on {self.source} ({what}) at {self.point}"


def _unescape(field: str) -> str:
    # proc(5): space, tab, newline and backslash are octal escapes
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def parse(text: str) -> list[Mount]:
    """The mounts of a mountinfo text; a line that does not parse is skipped."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue
        mounts.append(Mount(_unescape(fields[4]), tail[0], _unescape(tail[1])))
    return mounts


def read_mounts(path: str = MOUNTINFO) -> list[Mount]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse(handle.read(4 * 2**20))
    except OSError:
        return []


def mount_of(path: str | os.PathLike[str], mounts: list[Mount] | None = None) -> Mount | None:
    """The mount that holds ``path`` (the longest mount point above its real path; the last mounted wins)."""
    real = os.path.realpath(path)
    best: Mount | None = None
    for m in mounts if mounts is not None else read_mounts():
        point = m.point.rstrip("/") or "/"
        inside = real == point or real.startswith(point if point == "/" else point + "/")
        if inside and (best is None or len(point) >= len(best.point.rstrip("/") or "/")):
            best = m
    return best


def free_bytes(path: str | os.PathLike[str]) -> int | None:
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def local_room(need_bytes: int, mounts: list[Mount] | None = None) -> tuple[str, int] | None:
    """(a folder on a local disk, its free bytes) with room for ``need_bytes``, the freest of the usual places."""
    mounts = mounts if mounts is not None else read_mounts()
    best: tuple[str, int] | None = None
    try:
        here = os.getcwd()
    except OSError:   # the working folder was removed under us
        here = ""
    for place in (os.environ.get("TMPDIR", ""), "/tmp", str(Path.home()), here, "/mnt", "/scratch"):
        if not place or not os.path.isdir(place):
            continue
        m = mount_of(place, mounts)
        free = free_bytes(place)
        if m is None or m.kind != "local" or free is None or free < need_bytes:
            continue
        if best is None or free > best[1]:
            best = (place, free)
    return best
