"""Opening one image file the way a training loader does, with every way it can fail counted, never raised.

A file is read whole (never more than :data:`MAX_FILE_BYTES`: a larger one is no image, and is skipped
unread), then its first bytes say what it is (a PNG named .jpg is common in scraped data sets:
PIL opens it, a JPEG-only decoder does not). Its header's pixel count is checked against PIL's
decompression-bomb limit (``PIL.Image.MAX_IMAGE_PIXELS``) before any pixel is decoded, so a bomb costs a
header read. Torch-free (PIL only).
"""

from __future__ import annotations

import io
import os
import stat
import warnings
from dataclasses import dataclass, field
from typing import Any

from workloads.facts.formatting import format_bytes
from workloads.safe_text import file_name

JPEG_MAGIC = b"\xff\xd8\xff"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# the largest file an image PIL decodes can be: its default limit (89.5 M pixels) stored uncompressed at 8 bytes a
# pixel (16-bit RGBA TIFF, the most any format PIL reads spends on one) is 716 MB. A larger .jpg (a sparse
# terabyte, a disk image misnamed) is skipped unread: reading it whole would hold it all in memory
MAX_FILE_BYTES = 768 << 20
OVERSIZE = f"larger than any image can be (over {format_bytes(MAX_FILE_BYTES)})"
READ_CHUNK = 1 << 20

# what went wrong with a file -> the words the result and the report use
PROBLEMS = {"misnamed": "not a JPEG despite its name (decoded by PIL)", "truncated": "truncated or corrupt",
            "huge": "over PIL's decompression-bomb limit (skipped)", "unreadable": "unreadable",
            "oversize": f"{OVERSIZE}, skipped"}


@dataclass
class Problems:
    """Files that are not what they say or do not decode, counted by kind, with a few names."""

    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, path: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        path = file_name(path)   # a data set's name is shown: ESC ]0; in it would retitle the terminal
        names = self.examples.setdefault(kind, [])
        if len(names) < 3 and path not in names:
            names.append(path)

    def merge(self, other: Problems) -> None:
        for kind, n in other.counts.items():
            self.counts[kind] = self.counts.get(kind, 0) + n
            for path in other.examples.get(kind, []):
                names = self.examples.setdefault(kind, [])
                if len(names) < 3 and path not in names:
                    names.append(path)

    def describe(self) -> str:
        return "; ".join(f"{n} {PROBLEMS.get(k, k)} (e.g. {', '.join(self.examples.get(k, []))})"
                         for k, n in sorted(self.counts.items()))


def kind_of(data: bytes) -> str:
    if data.startswith(JPEG_MAGIC):
        return "jpeg"
    if data.startswith(PNG_MAGIC):
        return "png"
    return "other"


def read_bytes(path: str, problems: Problems | None = None) -> bytes | None:
    """The file's bytes; None, counted, when it cannot be read, is not a regular file or holds more than
    :data:`MAX_FILE_BYTES` (its size is checked before a byte is read, and again as it is read: it may have grown
    since the survey saw it)."""
    limit = MAX_FILE_BYTES   # looked up at each call: a test lowers it
    try:
        # O_NONBLOCK: a name swapped for a FIFO since the survey fails the regular-file check instead of hanging
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb", buffering=0) as handle:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):   # a device or a FIFO is never read: /dev/zero never ends
                kind = "unreadable"
            else:
                data = _read_capped(handle, st.st_size, limit) if st.st_size <= limit else None
                if data is not None:
                    return data
                kind = "oversize"
    except OSError:
        kind = "unreadable"
    if problems is not None:
        problems.add(kind, path)
    return None


def _read_capped(handle: Any, size: int, limit: int) -> bytes | None:
    """At most ``limit`` bytes, or None when the file holds more: one read of the size its stat gave (one buffer, no
    copy), then bounded chunks only where that came short or the file grew."""
    parts: list[bytes] = []
    got, ask = 0, size + 1   # a byte more than its stat says: a file that grew shows it
    while got <= limit:
        part = handle.read(min(ask, limit + 1 - got))
        if not part:
            break
        parts.append(part)
        got, ask = got + len(part), READ_CHUNK
    if got > limit:
        return None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def open_rgb(data: bytes, path: str, problems: Problems | None = None) -> Any | None:
    """The decoded RGB PIL image, or None with the reason counted in ``problems``."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            # PIL warns between MAX_IMAGE_PIXELS and twice it, and raises above: both are a bomb to us
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            limit = Image.MAX_IMAGE_PIXELS
            if limit and width * height > limit:
                raise Image.DecompressionBombError(f"{width} x {height} pixels")
            if path.lower().endswith((".jpg", ".jpeg")) and kind_of(data) != "jpeg" and problems is not None:
                problems.add("misnamed", path)
            return image.convert("RGB")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        if problems is not None:
            problems.add("huge", path)
    except (OSError, SyntaxError, ValueError, Image.UnidentifiedImageError):
        # PIL raises these for a truncated or foreign file ('image file is truncated', 'cannot identify')
        if problems is not None:
            problems.add("truncated", path)
    return None


def load_rgb(path: str, problems: Problems | None = None) -> Any | None:
    data = read_bytes(path, problems)
    return None if data is None else open_rgb(data, path, problems)
