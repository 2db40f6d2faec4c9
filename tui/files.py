"""Files written whole or not at all: a reader (or a restore) never sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, *, mode: int | None = None, fsync: bool = False) -> None:
    """Write ``text`` to a temporary file beside ``path`` (a unique name: two writers never share it), then rename it.

    ``mode``: the file's permissions (mkstemp's 0600 otherwise); ``fsync``: on disk before the rename (a backup's
    manifest, which must survive the instance going away right after).
    """
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            if fsync:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
