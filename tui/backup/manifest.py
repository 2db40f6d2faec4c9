"""The manifest (`sha256sum -c` format) and the index the next backup compares against."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable

MANIFEST = "MANIFEST.sha256"
INDEX = ".cardbench-backup.json"
LATEST = "LATEST"
FORMAT = "cardbench-backup/1"
CHUNK = 1 << 20


@dataclass(frozen=True)
class Entry:
    """One file in a snapshot: what it holds, and where and when it came from (for the quick check)."""

    sha256: str
    size: int
    mtime_ns: int
    source: str


def manifest_text(entries: dict[str, Entry]) -> str:
    # text mode (two spaces) as sha256sum writes it; names with a newline or a backslash never get here
    return "".join(f"{entries[rel].sha256}  {rel}\n" for rel in sorted(entries))


def parse_manifest(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        digest, sep, rel = line.partition("  ")
        if sep and len(digest) == 64:
            out[rel] = digest
    return out


def index_text(entries: dict[str, Entry], created: float) -> str:
    files = {rel: {"sha256": e.sha256, "size": e.size, "mtime_ns": e.mtime_ns, "source": e.source}
             for rel, e in sorted(entries.items())}
    return json.dumps({"format": FORMAT, "created": created, "files": files}, indent=1) + "\n"


def parse_index(text: str) -> dict[str, Entry]:
    """The previous snapshot's entries; empty when the index is not ours or damaged (everything is then sent)."""
    try:
        data = json.loads(text)
        files = data["files"] if isinstance(data, dict) and data.get("format") == FORMAT else {}
        return {rel: Entry(str(f["sha256"]), int(f["size"]), int(f["mtime_ns"]), str(f["source"]))
                for rel, f in files.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}


def copy_hashing(src: BinaryIO, dst: BinaryIO | None, on_bytes: Callable[[int], None]) -> tuple[str, int]:
    """Copy (or with ``dst`` None only read) and hash the same bytes: the sum is of what was written, even
    when the source grows meanwhile (a run still appending to its events)."""
    digest = hashlib.sha256()
    size = 0
    while chunk := src.read(CHUNK):
        digest.update(chunk)
        if dst is not None:
            dst.write(chunk)
        size += len(chunk)
        on_bytes(len(chunk))
    return digest.hexdigest(), size


def file_sha256(path: Any, on_bytes: Callable[[int], None] = lambda n: None) -> tuple[str, int]:
    with open(path, "rb") as handle:
        return copy_hashing(handle, None, on_bytes)
