"""The manifest (`sha256sum -c` format) and the index the next backup compares against."""

from __future__ import annotations

import hashlib
import json
import os
import re
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
    mode: int | None = None   # the source's permission bits: a chmod alone (0644 to 0600) sends the file again


def manifest_bytes(entries: dict[str, Entry]) -> bytes:
    """The lines `sha256sum -c` checks, names as the bytes the filesystem holds (a name that is not UTF-8 is
    kept, not re-encoded). Text mode (two spaces) as sha256sum writes it; a name with a backslash, a newline or
    a carriage return is escaped as GNU sha256sum escapes it: the line starts with a backslash."""
    lines = []
    for rel in sorted(entries):
        name = os.fsencode(rel)
        escaped = name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")
        lead = b"\\" if escaped != name else b""
        lines.append(lead + entries[rel].sha256.encode() + b"  " + escaped + b"\n")
    return b"".join(lines)


def parse_manifest(data: bytes | str) -> dict[str, str]:
    """name (as os.fsdecode gives it) -> SHA-256, from sha256sum's lines, escaped ones included."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")
    out = {}
    for line in raw.split(b"\n"):
        escaped = line.startswith(b"\\")
        digest, sep, name = line[1 if escaped else 0:].partition(b"  ")
        if not sep or len(digest) != 64:
            continue
        if escaped:
            name = _UNESCAPE.sub(lambda m: _UNESCAPED[m.group(0)], name)
        out[os.fsdecode(name)] = digest.decode("ascii", "replace")
    return out


_UNESCAPED = {b"\\\\": b"\\", b"\\n": b"\n", b"\\r": b"\r"}
_UNESCAPE = re.compile(rb"\\\\|\\n|\\r")


def index_text(entries: dict[str, Entry], created: float) -> str:
    files = {rel: {"sha256": e.sha256, "size": e.size, "mtime_ns": e.mtime_ns, "source": e.source, "mode": e.mode}
             for rel, e in sorted(entries.items())}
    return json.dumps({"format": FORMAT, "created": created, "files": files}, indent=1) + "\n"


def parse_index(text: str) -> dict[str, Entry]:
    """The previous snapshot's entries; empty when the index is not ours or damaged (everything is then sent)."""
    try:
        data = json.loads(text)
        files = data["files"] if isinstance(data, dict) and data.get("format") == FORMAT else {}
        return {rel: Entry(str(f["sha256"]), int(f["size"]), int(f["mtime_ns"]), str(f["source"]),
                           f.get("mode") if isinstance(f.get("mode"), int) else None)
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
