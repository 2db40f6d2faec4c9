"""The bundle's files, gathered in memory (a long text in a temporary file), every text redacted, then one zip
written atomically.

Atomic: the zip is written to a hidden temporary name in the output directory,
flushed and fsynced, then renamed over the final name. An export interrupted at
any point (Ctrl+C, a full disk, a crash) leaves no file under the final name; a
temporary file left by a killed process starts with a dot and ends in
``.partial``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import time
import zipfile
from pathlib import Path
from typing import IO, Any, Iterable

from tui.redact import Redactor

SUMS = "SHA256SUMS"
PARTIAL_SUFFIX = ".partial"
_FAST_FROM = 4 << 20  # bytes: a file this large is deflated at the fastest level


class BundleError(Exception):
    """The bundle cannot be written; the message is one line for the user."""


def bundle_stem(host: str, t: float) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", host).strip("-.") or "host"
    return f"cardbench-report-{safe}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(t))}"


def check_output_dir(path: Path) -> Path:
    """Create the output directory if needed and prove it writable now, before minutes of work."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise BundleError(f"cannot write the report to {path}: it exists and is not a directory") from None
    except OSError as exc:
        raise BundleError(f"cannot write the report to {path}: {exc.strerror or exc}") from None
    probe = path / f".cardbench-write-test-{os.getpid()}"
    try:
        with open(probe, "wb") as fh:
            fh.write(b"ok")
    except OSError as exc:
        raise BundleError(f"cannot write the report to {path}: {exc.strerror or exc}") from None
    finally:
        try:
            probe.unlink()
        except OSError:
            pass
    return path


class Bundle:
    """Files by path inside the bundle; every text goes through the redactor on its way in."""

    def __init__(self, redactor: Redactor):
        self.redactor = redactor
        self.files: dict[str, bytes] = {}
        self._spooled: dict[str, tuple[IO[bytes], str, int]] = {}   # name: (file, sha256, size)

    def add_text_chunks(self, name: str, chunks: Iterable[str]) -> None:
        """A long text (a day's telemetry.csv is 130 MB) redacted piece by piece into a temporary file, never
        whole in memory. For a text of numbers and device names (telemetry.csv): a secret spread over two
        pieces, or learnt from a later one, would not be redacted (the redactor sees one piece at a time)."""
        handle = tempfile.TemporaryFile()
        digest, size = hashlib.sha256(), 0
        try:
            for chunk in chunks:
                data = self.redactor.text(chunk).encode("utf-8")
                digest.update(data)
                handle.write(data)
                size += len(data)
        except BaseException:
            handle.close()
            raise
        self.files.pop(name, None)
        self._spooled[name] = (handle, digest.hexdigest(), size)

    def names(self) -> list[str]:
        return sorted([*self.files, *self._spooled])

    def add_text(self, name: str, text: str) -> None:
        self._spooled.pop(name, None)
        self.files[name] = self.redactor.text(text).encode("utf-8")

    def add_redacted_text(self, name: str, text: str) -> None:
        """A text this bundle's redactor has already scrubbed (a long run.log: once is enough)."""
        self.files[name] = text.encode("utf-8")

    def add_json(self, name: str, obj: Any) -> None:
        """An object as JSON, redacted as JSON (not as text: the file stays JSON, issue 37)."""
        self._spooled.pop(name, None)
        self.files[name] = self.redactor.json_text(obj).encode("utf-8")

    def add_jsonl(self, name: str, text: str) -> None:
        """JSON lines redacted object by object (keys and option lists), each line still JSON."""
        self.files[name] = self.redactor.jsonl(text).encode("utf-8")

    def add_binary(self, name: str, data: bytes) -> None:
        """Rendered images only: their text was redacted before rendering."""
        self.files[name] = bytes(data)

    def sha256sums(self) -> str:
        sums = {name: hashlib.sha256(data).hexdigest() for name, data in self.files.items()}
        sums.update((name, digest) for name, (_, digest, _) in self._spooled.items())
        return "\n".join(f"{digest}  {name}" for name, digest in sorted(sums.items())) + "\n"

    def write_zip(self, output_dir: Path, stem: str, t: float | None = None) -> Path:
        """``output_dir/stem.zip`` holding ``stem/<files>`` and ``stem/SHA256SUMS``, written atomically."""
        files = dict(self.files)
        files[SUMS] = self.sha256sums().encode("utf-8")
        base, n = stem, 1
        while (Path(output_dir) / f"{stem}.zip").exists():  # two exports in one second keep both
            n += 1
            stem = f"{base}-{n}"
        final = Path(output_dir) / f"{stem}.zip"
        temp = Path(output_dir) / f".{stem}.zip.{os.getpid()}{PARTIAL_SUFFIX}"
        stamp = time.gmtime(t if t is not None else time.time())[:6]
        try:
            with open(temp, "wb") as fh:
                with zipfile.ZipFile(fh, "w") as zf:
                    for name in sorted([*files, *self._spooled]):
                        info = zipfile.ZipInfo(f"{stem}/{name}", date_time=stamp)
                        info.external_attr = 0o644 << 16
                        info.compress_type = zipfile.ZIP_STORED if name.endswith(".png") else zipfile.ZIP_DEFLATED
                        # a long run's logs and CSVs are 100+ MB: the fastest level takes a third of the
                        # time of the default (level 6) for a zip about 15 % larger
                        if name in files:
                            data = files[name]
                            zf.writestr(info, data, compresslevel=1 if len(data) > _FAST_FROM else None)
                            continue
                        spooled, _, size = self._spooled[name]
                        info.file_size = size
                        info._compresslevel = 1 if size > _FAST_FROM else None  # what writestr's argument sets
                        spooled.seek(0)
                        with zf.open(info, "w", force_zip64=size > zipfile.ZIP64_LIMIT) as entry:
                            shutil.copyfileobj(spooled, entry, 1 << 20)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, final)
        except OSError as exc:
            _unlink(temp)
            raise BundleError(f"cannot write the report to {output_dir}: {exc.strerror or exc}") from None
        except BaseException:
            _unlink(temp)
            raise
        _fsync_dir(Path(output_dir))
        return final


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
