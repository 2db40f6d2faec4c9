"""The one reader of a run's files: config.json checked into a dict, and a JSON-lines file (events.jsonl,
telemetry.jsonl) decoded line by line with its rotated segments first. Torch- and UI-free.

A line that does not decode (torn by a crash, not JSON, nested too deep) is given as None, for the caller to
skip and count; a segment that cannot be read is a problem line and the others are still read.
"""

from __future__ import annotations

import gzip
import json
import math
from itertools import chain
from pathlib import Path
from typing import Any, Iterator

from workloads import protocol
from workloads.rundir import CONFIG
from workloads.rundir.segments import read_bytes, read_text, segment_paths, with_segments


class Unreadable(Exception):
    """A JSON-lines file that cannot be read (a directory, no permission, an I/O error)."""


def read_jsonl(path: Path) -> list[Any]:
    """The decoded lines of one JSON-lines file (gunzipped: a segment's .gz), blank lines left out; a line that
    does not decode gives None.

    Raises Unreadable when the file cannot be read; a missing file has no lines.
    """
    try:
        # read whole and split: a quarter faster than line by line, and a long run has 100,000s of lines
        text = read_text(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    out: list[Any] = []
    loads = json.loads
    for line in text.split("\n"):  # the text layer turned "\r\n" and "\r" into "\n", as iterating does
        if not line or line.isspace():
            continue
        try:
            out.append(loads(line))
        except (ValueError, RecursionError):
            # cut short by a crash, or not JSON, or nested too deep for the decoder
            out.append(None)
    return out


def _gap(segment: Path, path: Path, why: Any) -> str:
    return f"{segment.name} cannot be read ({why}); the run's {path.name} has a gap there"


def read_rotated(path: Path, problems: list[str]) -> list[Any]:
    """The decoded lines of the rotated segments of ``path`` (the live file's path), oldest first; a segment
    that cannot be read is a problem ('<segment> cannot be read (why); the run's <file> has a gap there')."""
    out: list[Any] = []
    for segment in segment_paths(path):
        try:
            out.extend(read_jsonl(segment))
        except Unreadable as why:
            problems.append(_gap(segment, path, why))
    return out


def read_all(path: Path, problems: list[str]) -> list[Any]:
    """:func:`read_rotated`, then the live file (raises Unreadable when the live file cannot be read)."""
    return [*read_rotated(path, problems), *read_jsonl(path)]


def read_buffers(parts: list[Path], path: Path, problems: list[str]) -> Iterator[bytes]:
    """The bytes of these parts of ``path`` (its segments as :func:`segment_paths` lists them, then ``path``
    itself, the live file, where it is one of them), in order, for a reader that decodes the lines itself
    (`tui.store.telemetry`: a day is 626 MB of JSON). The next part is read and gunzipped on a thread
    while the caller decodes this one (zlib lets go of the interpreter: a day's ten segments take ~0.8 s of it),
    so two are in memory at most. A segment that cannot be read is a problem, as in :func:`read_rotated`; raises
    Unreadable when the live file cannot be read (a missing one has no bytes)."""
    if not parts:
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cardbench-read-segment")
    try:
        ahead = pool.submit(read_bytes, parts[0])
        for i, part in enumerate(parts):
            exc = ahead.exception()
            data = ahead.result() if exc is None else None
            ahead = pool.submit(read_bytes, parts[i + 1]) if i + 1 < len(parts) else None
            if part == path:   # the live file
                if isinstance(exc, FileNotFoundError):
                    return
                if isinstance(exc, OSError):
                    raise Unreadable(exc.strerror or str(exc)) from None
            elif isinstance(exc, OSError):
                problems.append(_gap(part, path, exc.strerror or exc))
                continue
            if exc is not None:
                raise exc
            yield data
            data = None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def iter_jsonl(path: Path) -> Iterator[Any]:
    """The decoded lines of ``path`` and its segments, oldest first, read lazily (for a caller that wants the
    first few lines of a long file); an undecodable line gives None, a part that cannot be read is passed over."""
    return chain.from_iterable(_iter_one(part) for part in with_segments(path))


def _iter_one(path: Path) -> Iterator[Any]:
    try:
        handle = (gzip.open(path, "rt", encoding="utf-8", errors="replace") if path.suffix == ".gz"
                  else open(path, encoding="utf-8", errors="replace"))
    except OSError:
        return
    with handle:
        try:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except (ValueError, RecursionError):
                    yield None
        except (OSError, EOFError):
            return   # a torn .gz: what was read stands


def read_text_all(path: Path) -> str:
    """The text of ``path`` with its segments before it ("" for a part that cannot be read)."""
    parts = []
    for part in with_segments(path):
        try:
            parts.append(read_text(part))
        except OSError:
            continue
    return "".join(parts)


# config.json keys the workbench and the report read, and the types they must have to be used
_CONFIG_TYPES: dict[str, tuple[type, ...]] = {"workload": (str,), "args": (list,), "created": (int, float)}
_CONFIG_WANTED = {"workload": "a string", "args": "a list", "created": "a number"}


def read_config(run_dir: Path, problems: list[str]) -> dict[str, Any]:
    """The run's config.json as a dict; whatever is wrong with it becomes a problem and an empty (or partial)
    config."""
    try:
        text = (run_dir / CONFIG).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        problems.append(f"{CONFIG} is missing")
        return {}
    except OSError as exc:
        problems.append(f"{CONFIG} cannot be read ({exc.strerror or exc}); treated as empty")
        return {}
    try:
        config = json.loads(text)
    except (ValueError, RecursionError):
        problems.append(f"{CONFIG} is not valid JSON; treated as empty")
        return {}
    if not isinstance(config, dict):
        problems.append(f"{CONFIG} holds {json_kind(config)}, not an object; treated as empty")
        return {}
    if protocol.too_deep(config):
        problems.append(f"{CONFIG} is nested more than {protocol.MAX_DEPTH} levels deep; treated as empty")
        return {}
    for key, allowed in _CONFIG_TYPES.items():
        if key in config and not (protocol.fits(config[key], allowed)
                                  and (key != "created" or math.isfinite(config[key]))):
            problems.append(f"{CONFIG}: {key!r} is {json_kind(config[key])}, not {_CONFIG_WANTED[key]}; ignored")
            del config[key]
    return config


def json_kind(value: Any) -> str:
    """'null', 'a boolean', 'an object'...: what a decoded JSON value is, in the words of a problem line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN or infinite"
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value), "a number")
