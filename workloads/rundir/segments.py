"""A run's long files, rotated and capped: telemetry.jsonl and run.log. Torch- and UI-free.

The caps (issue 13 item 4: at 1 Hz with 8 devices a day is 86,400 samples, 700,000 device readings,
about 600 MiB of JSON lines with every NVML field read):

- telemetry.jsonl is closed at :data:`TELEMETRY_SEGMENT_BYTES` (64 MiB, about 2.5 hours of 8 devices at
  1 Hz), renamed ``telemetry.0001.jsonl`` (then 0002...) and gzipped in the background
  (``telemetry.0001.jsonl.gz``, about a sixteenth of the size); a new telemetry.jsonl takes the next samples.
- run.log the same at :data:`LOG_SEGMENT_BYTES` (32 MiB): ``run.0001.log.gz``...
- events.jsonl the same at :data:`EVENTS_SEGMENT_BYTES` (64 MiB: about 8 hours of 10 steps a second, whose
  step events are about 200 bytes): ``events.0001.jsonl.gz``... A run of a few hours never rotates.
- The gzipped segments of one file are kept up to :data:`TELEMETRY_KEEP_BYTES` (1 GiB),
  :data:`LOG_KEEP_BYTES` (256 MiB) and :data:`EVENTS_KEEP_BYTES` (256 MiB, weeks of steps). Past that the oldest segment but the first (the run's start) is
  deleted and named in ``<file>.dropped`` (one JSON line each: segment, bytes, lines), and reading the
  run back notes the gap as a problem. A day of 8 devices is 37 MiB on disk, far below the cap
  (``python bench/run_store_day.py`` prints the figures).

Reading back (`workloads.rundir.read`, `tui.store.load_run`, `tui.store.RunRecord.log_text`) sees the whole
run: the segments in order (:func:`with_segments`), then the live file. Each telemetry segment also gets a thinned copy, ``telemetry.0001.thin.jsonl.gz``
(1 sample in :data:`THIN_EVERY` and its last): the workbench plots a
long run it attaches to from those and the live file (`tui.store.follow`), and says so.
"""

from __future__ import annotations

import gzip
import zlib
import json
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any, Callable

TELEMETRY_SEGMENT_BYTES = 64 * 2**20
TELEMETRY_KEEP_BYTES = 2**30
LOG_SEGMENT_BYTES = 32 * 2**20
LOG_KEEP_BYTES = 256 * 2**20
EVENTS_SEGMENT_BYTES = 64 * 2**20
EVENTS_KEEP_BYTES = 256 * 2**20
# a telemetry segment's thinned copy keeps 1 sample in this many (and its last): 30 s apart at 1 Hz, where a
# day's plot 100 columns wide gives a column 14 minutes
THIN_EVERY = 30
_GZIP_LEVEL = 6   # JSON lines shrink about tenfold; level 9 buys little for much more CPU


def _parts(path: Path) -> tuple[str, str]:
    """'telemetry.jsonl' -> ('telemetry', '.jsonl'): a segment is <stem>.<n><suffix>[.gz]."""
    return path.stem, path.suffix


def segment_number(segment: Path) -> int:
    """'telemetry.0003.jsonl.gz' (or its thinned copy) -> 3: the one parser of a segment's number."""
    return int(segment.name.split(".")[1])


def with_segments(path: Path) -> list[Path]:
    """Every part of one of a run's files, in order: its rotated segments, then the live file."""
    return [*segment_paths(path), path]


def segment_paths(path: Path) -> list[Path]:
    """The rotated segments of ``path`` (the live file's path), oldest first; a segment still being gzipped is
    read from its plain file, which is whole (the .gz takes its name only once it is whole too)."""
    stem, suffix = _parts(path)
    pattern = re.compile(rf"{re.escape(stem)}\.(\d+){re.escape(suffix)}(\.gz)?")
    found: dict[int, Path] = {}
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        n = int(match.group(1))
        if n not in found or not match.group(2):
            found[n] = path.parent / name
    return [found[n] for n in sorted(found)]


def read_bytes(path: Path) -> bytes:
    """A file's bytes, gunzipped if it is a segment's .gz; raises OSError (gzip's errors included)."""
    if path.suffix == ".gz":
        try:
            with open(path, "rb") as handle:
                return gzip.decompress(handle.read())   # in one call: a fifth faster than reading a GzipFile
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise OSError(f"{path.name}: {exc}") from None
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        packed = path.with_name(path.name + ".gz")
        if not packed.exists():
            raise
        return read_bytes(packed)  # gzipped since it was listed: the .gz took its name before the plain one went


def read_text(path: Path) -> str:
    """:func:`read_bytes` as text (UTF-8, a bad byte replaced), newlines as universal newlines read them."""
    text = read_bytes(path).decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def thin_path(segment: Path) -> Path:
    """'telemetry.0003.jsonl[.gz]' -> 'telemetry.0003.thin.jsonl.gz': 1 line in THIN_EVERY of that segment."""
    stem, n, suffix = segment.name.split(".")[:3]
    return segment.with_name(f"{stem}.{n}.thin.{suffix}.gz")


def dropped_note(path: Path) -> str | None:
    """One line for the report when the cap deleted segments of ``path``, else None."""
    try:
        lines = (path.parent / f"{path.name}.dropped").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    gone = []
    for line in lines:
        try:
            gone.append(json.loads(line))
        except ValueError:
            continue
    if not gone:
        return None
    count = sum(g.get("lines", 0) for g in gone if isinstance(g, dict) and isinstance(g.get("lines"), int))
    return (f"{path.name}: {len(gone)} old segment(s) ({count} lines) were deleted by the size cap; "
            "the run's start and its latest part are kept")


class SegmentedFile:
    """An append-only text file rotated at ``segment_bytes`` into gzipped segments, kept to ``keep_bytes``.

    Has what `tui.store.Run` uses of a file: ``write``, ``flush``, ``close``, ``closed``, ``name``. A write
    that fails raises OSError as a file's would; a rotation that fails leaves the file growing (never lost).
    """

    def __init__(self, path: Path, segment_bytes: int, keep_bytes: int, opener: Callable[..., Any] = open,
                 thin_every: int = 1):
        self.path = path
        self.thin_every = thin_every   # > 1: each segment also gets a thinned copy (thin_path)
        self._open = opener   # the run store's: its tests make writes fail through it
        self.name = str(path)
        self.segment_bytes = segment_bytes
        self.keep_bytes = keep_bytes
        self._handle = self._open(path, "a", encoding="utf-8", buffering=1)
        self._size = self._handle.tell()
        self._lines = 0
        self._kept: dict[int, dict[str, Any]] = {}   # what the dropped note says of each segment made here
        self._gzip: threading.Thread | None = None

    @property
    def closed(self) -> bool:
        return self._handle.closed

    def write(self, text: str) -> None:
        self._handle.write(text)
        self._size += len(text)  # characters: bytes for the ASCII of JSON lines, near enough for a log
        self._lines += text.count("\n")

    def flush(self) -> None:
        self._handle.flush()
        if self._size >= self.segment_bytes:
            self._rotate()

    def _rotate(self) -> None:
        segments = segment_paths(self.path)
        stem, suffix = _parts(self.path)
        n = segment_number(segments[-1]) + 1 if segments else 1
        plain = self.path.with_name(f"{stem}.{n:04d}{suffix}")
        meta = {"segment": n, "lines": self._lines}
        try:
            os.replace(self.path, plain)
            handle = self._open(self.path, "a", encoding="utf-8", buffering=1)
        except OSError:
            self._size = 0  # it grows past the cap rather than lose a line; tried again a segment later
            return
        self._handle.close()
        self._handle, self._size, self._lines = handle, 0, 0
        if self._gzip is not None:
            self._gzip.join()  # one at a time: a segment takes seconds, a rotation comes hours later
        self._gzip = threading.Thread(target=self._compress, args=(plain, meta), name=f"cardbench-gzip-{plain.name}",
                                      daemon=True)
        self._gzip.start()

    def _compress(self, plain: Path, meta: dict[str, Any]) -> None:
        packed = plain.with_name(plain.name + ".gz")
        part = plain.with_name(plain.name + ".gz.part")
        try:
            with open(plain, "rb") as source, gzip.open(part, "wb", compresslevel=_GZIP_LEVEL) as target:
                shutil.copyfileobj(source, target, 1 << 20)
            if self.thin_every > 1:
                self._thin(plain)
            os.replace(part, packed)
            plain.unlink()
            meta["bytes"] = packed.stat().st_size
            self._keep_to_cap(meta)
        except OSError:
            part.unlink(missing_ok=True)  # the plain segment stays, whole, and is read as it is

    def _thin(self, plain: Path) -> None:
        """Every ``thin_every``-th line of the segment and its last, gzipped beside it: what the workbench reads
        to plot a long run (a day's segments in a second, not ten); the report reads the segment itself."""
        lines = [line for line in plain.read_bytes().split(b"\n") if line.strip()]
        kept = lines[::self.thin_every] + ([lines[-1]] if lines and (len(lines) - 1) % self.thin_every else [])
        thin = thin_path(plain)
        part = thin.with_name(thin.name + ".part")
        with gzip.open(part, "wb", compresslevel=_GZIP_LEVEL) as target:
            target.write(b"\n".join(kept) + b"\n")
        os.replace(part, thin)

    def _keep_to_cap(self, newest: dict[str, Any]) -> None:
        """Delete the oldest segments but the first while the gzipped ones hold more than ``keep_bytes``."""
        log = self.path.parent / f"{self.path.name}.dropped"
        self._kept[newest["segment"]] = newest
        segments = [p for p in segment_paths(self.path) if p.suffix == ".gz"]
        sizes = {p: p.stat().st_size for p in segments}
        total = sum(sizes.values())
        for victim in segments[1:-1]:
            if total <= self.keep_bytes:
                break
            n = segment_number(victim)
            note = self._kept.pop(n, {"segment": n})
            note["bytes"] = sizes[victim]
            victim.unlink()
            thin_path(victim).unlink(missing_ok=True)
            total -= sizes[victim]
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(note) + "\n")

    def close(self) -> None:
        self._handle.close()
        if self._gzip is not None:
            self._gzip.join()
