"""``--make-data N``: N ImageNet-sized JPEGs in a temporary folder, so the workload runs where no data set is.

Sizes follow ImageNet's training set, whose images average about 400 x 350 pixels and 110 kB (most between 200
and 500 pixels a side): each made image draws its sides from that range. The pictures are smooth colour fields
with fine noise, encoded by PIL at quality 90, so a file is a real baseline JPEG of a realistic size (pure noise
would be several times larger and decode slower than a photograph). Two class folders: the ImageFolder layout.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import tempfile
from pathlib import Path

PREFIX = "cardbench-dataio-"
CLASSES = ("class_a", "class_b")
SIDES = (200, 500)       # pixels, each side drawn in this range
QUALITY = 90


class NoRoom(Exception):
    """The folder for the made data could not be written (a full disk, a read-only place): one line."""


def _image(rng: random.Random, width: int, height: int):
    from PIL import Image

    # a small random field blown up is smooth, like a photograph's large areas; noise adds its texture
    small = Image.frombytes("RGB", (8, 8), bytes(rng.randrange(256) for _ in range(8 * 8 * 3)))
    base = small.resize((width, height), Image.BICUBIC)
    noise = Image.effect_noise((width, height), 24).convert("RGB")
    return Image.blend(base, noise, 0.7)


def make(count: int, where: str | None = None, seed: int = 0) -> Path:
    """Write ``count`` JPEGs into a new folder under ``where`` (default: the system's temporary folder)."""
    parent = where or tempfile.gettempdir()
    try:
        folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    except OSError as exc:
        raise NoRoom(f"cannot make a folder for the made data in {parent}: {exc.strerror or exc}") from None
    rng = random.Random(seed)
    try:
        for name in CLASSES:
            (folder / name).mkdir()
        for i in range(count):
            width, height = rng.randint(*SIDES), rng.randint(*SIDES)
            path = folder / CLASSES[i % len(CLASSES)] / f"img_{i:06d}.jpg"
            _image(rng, width, height).save(path, "JPEG", quality=QUALITY)
    except OSError as exc:
        remove(folder)
        free = shutil.disk_usage(parent).free if os.path.isdir(parent) else None
        room = f" ({free / 1e6:,.0f} MB free there)" if free is not None else ""
        what = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else (exc.strerror or str(exc))
        raise NoRoom(f"cannot write the made data in {parent}: {what}{room}") from None
    except BaseException:   # a stop (SIGTERM, Ctrl+C) or a missing PIL: no half-made folder is left behind
        remove(folder)
        raise
    # the pages just written are dirty, and posix_fadvise drops clean pages only: written back now, the storage
    # part's cold read is one
    if hasattr(os, "sync"):
        os.sync()
    return folder


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
