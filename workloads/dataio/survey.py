"""What a data directory holds: its files (counted, sized, sampled on big trees), where it lives, and what in it
cannot be read. Torch-free; nothing in the tree is opened for writing.

The walk follows links to folders (a dataset is often a tree of links to a shared store) but never enters a
folder twice (the (device, inode) pair of each one entered is kept), so a symlink loop is one counted skip. It
stops at a file cap or a time cap, and then says the counts are of a sample: a reservoir of the files seen is
what the storage, decode and loader parts read.
"""

from __future__ import annotations

import os
import random
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from workloads.dataio import mounts
from workloads.dataio.images import MAX_FILE_BYTES, OVERSIZE
from workloads.safe_text import file_name

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".ppm", ".pgm")
MAX_ENTRIES = 500_000      # files and folders looked at before the walk stops and calls its counts a sample
SAMPLE_FILES = 20_000      # files kept (a uniform reservoir) for the parts that read them
WALK_SECONDS = 10.0


@dataclass
class Survey:
    root: str
    mount: mounts.Mount | None = None
    free_bytes: int | None = None
    files: int = 0                 # regular files seen
    images: int = 0                # of them, by suffix
    bytes_seen: int = 0
    complete: bool = True          # False: the walk stopped at a cap, counts are at least these
    loops: int = 0                 # links back to a folder already entered
    unreadable: int = 0            # files or folders that cannot be read (permissions, broken links)
    oversize: int = 0              # image files larger than any image can be: never read
    examples: list[str] = field(default_factory=list)   # a few of the skipped paths, relative
    sample: list[tuple[str, int]] = field(default_factory=list)   # (path, bytes) of image files, uniform

    def sizes(self) -> dict[str, int]:
        """p10, median, p90 and the largest of the sampled image files, bytes."""
        sizes = sorted(s for _, s in self.sample)
        if not sizes:
            return {}
        at = lambda q: sizes[min(len(sizes) - 1, int(q * (len(sizes) - 1) + 0.5))]
        return {"p10": at(0.1), "median": at(0.5), "p90": at(0.9), "max": sizes[-1]}

    def skip(self, path: str, kind: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.examples) < 5:
            # shown on the terminal and in run.log: a name's escape sequences go (the rule of workloads.safe_text)
            self.examples.append(file_name(os.path.relpath(path, self.root)))


class NoData(Exception):
    """DIR is missing, not a folder, unreadable or holds no image: one line says which."""


def check_root(root: str) -> str:
    """The real path of a readable folder, or NoData with the reason."""
    if not os.path.exists(root):
        raise NoData(f"data directory {file_name(root)} does not exist")
    if not os.path.isdir(root):
        raise NoData(f"data path {file_name(root)} is not a directory")
    if not os.access(root, os.R_OK | os.X_OK):
        raise NoData(f"data directory {file_name(root)} cannot be read (permission denied)")
    return os.path.realpath(root)


def survey(root: str, *, max_entries: int = MAX_ENTRIES, sample_size: int = SAMPLE_FILES,
           seconds: float = WALK_SECONDS, clock: Callable[[], float] = time.monotonic,
           rng: random.Random | None = None) -> Survey:
    """Walk ``root``; NoData when it cannot be read at all or holds no image file."""
    real = check_root(root)
    rng = rng or random.Random(0)
    s = Survey(root=real, mount=mounts.mount_of(real), free_bytes=mounts.free_bytes(real))
    deadline = clock() + seconds
    entered: set[tuple[int, int]] = set()
    stack = [real]
    looked = 0
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
        except OSError:
            s.skip(folder, "unreadable")
            continue
        if (st.st_dev, st.st_ino) in entered:
            s.skip(folder, "loops")
            continue
        entered.add((st.st_dev, st.st_ino))
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            s.skip(folder, "unreadable")
            continue
        for entry in entries:
            looked += 1
            try:
                if entry.is_dir(follow_symlinks=True):
                    if not entry.name.startswith("."):
                        stack.append(entry.path)
                    continue
                info = entry.stat(follow_symlinks=True)
            except OSError:   # a broken link, a loop of file links, a name gone since the listing
                s.skip(entry.path, "unreadable")
                continue
            if stat.S_ISREG(info.st_mode):
                _count(s, entry, info.st_size, sample_size, rng)
        if stack and (looked >= max_entries or clock() > deadline):
            s.complete = False
            break
    if not s.images:
        skipped = " and ".join(f"{n} {what}" for n, what in ((s.unreadable, "unreadable"), (s.loops, "link loop(s)"),
                                                            (s.oversize, OVERSIZE)) if n)
        skipped = f"; {skipped} skipped" if skipped else ""
        raise NoData(f"data directory {file_name(root)} holds no image files ({s.files} other file(s){skipped})")
    s.sample.sort()   # the same order on every run over the same tree
    return s


def _count(s: Survey, entry: os.DirEntry, size: int, sample_size: int, rng: random.Random) -> None:
    """One regular file: skipped when unreadable, or an image larger than any can be (never read, so never held
    whole); else counted, and an image kept in the sample with the same chance as every other (a reservoir)."""
    if not os.access(entry.path, os.R_OK):
        s.skip(entry.path, "unreadable")
        return
    image = entry.name.lower().endswith(IMAGE_SUFFIXES)
    if image and size > MAX_FILE_BYTES:
        s.skip(entry.path, "oversize")
        return
    s.files += 1
    s.bytes_seen += size
    if not image:
        return
    s.images += 1
    if len(s.sample) < sample_size:
        s.sample.append((entry.path, size))
    elif (j := rng.randrange(s.images)) < sample_size:
        s.sample[j] = (entry.path, size)


def describe(s: Survey) -> str:
    """One line: where the data lives and what it holds."""
    at_least = "" if s.complete else "at least "
    sizes = s.sizes()
    where = s.mount.describe() if s.mount else "mount unknown"
    free = f"{s.free_bytes / 1e9:,.1f} GB free" if s.free_bytes is not None else "free space unknown"
    spread = (f"median {sizes['median'] / 1e3:,.0f} kB (p10 {sizes['p10'] / 1e3:,.0f}, p90 {sizes['p90'] / 1e3:,.0f}, "
              f"largest {sizes['max'] / 1e3:,.0f} kB)") if sizes else "no sizes"
    skipped = [f"{n} {what}" for n, what in ((s.unreadable, "unreadable skipped"), (s.loops, "link loop(s) skipped"),
                                             (s.oversize, f"{OVERSIZE} skipped")) if n]
    return (f"{file_name(s.root)}: {where}; {free}; {at_least}{s.images:,} image file(s) of {at_least}{s.files:,}, "
            f"{spread}" + (f"; {', '.join(skipped)}" if skipped else "")
            + ("" if s.complete else f" (walk stopped after {MAX_ENTRIES:,} entries or {WALK_SECONDS:g} s: a sample)"))
