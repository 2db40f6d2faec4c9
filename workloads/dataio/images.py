"""Opening one image file the way a training loader does, with every way it can fail counted, never raised.

A file is read whole, then its first bytes say what it is (a PNG named .jpg is common in scraped data sets:
PIL opens it, a JPEG-only decoder does not). Its header's pixel count is checked against PIL's
decompression-bomb limit (``PIL.Image.MAX_IMAGE_PIXELS``) before any pixel is decoded, so a bomb costs a
header read. Torch-free (PIL only).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field
from typing import Any

JPEG_MAGIC = b"\xff\xd8\xff"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# what went wrong with a file -> the words the result and the report use
PROBLEMS = {"misnamed": "not a JPEG despite its name (decoded by PIL)", "truncated": "truncated or corrupt",
            "huge": "over PIL's decompression-bomb limit (skipped)", "unreadable": "unreadable"}


@dataclass
class Problems:
    """Files that are not what they say or do not decode, counted by kind, with a few names."""

    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, path: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
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
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        if problems is not None:
            problems.add("unreadable", path)
        return None


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
