"""``--output``: llama-bench's ``-o`` (a format the terminal prints instead of markdown) or a file whose ending names
its format, written when the run ends (the terminal keeps markdown). Torch-free, and checked before torch is imported:
a folder that is not there or cannot be written is one line and exit 2, before any run directory exists.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from workloads.child.harness import WorkloadError
from workloads.errors import clipped
from workloads.llm.bench_output import FORMATS, render


@dataclass(frozen=True)
class Output:
    format: str               # what the terminal prints (md unless --output named a format)
    path: Path | None = None  # a file written when the run ends, in its ending's format
    file_format: str | None = None


def parse(text: str | None) -> Output:
    """``--output``: a format, or a file ending .md/.csv/.json/.jsonl whose folder can be written; WorkloadError
    (exit 2) otherwise."""
    if text is None or text in FORMATS:
        return Output(text or "md")
    path = Path(text).expanduser()
    if path.is_dir():
        raise WorkloadError(f"--output {clipped(text, quote=True)} is a folder", hint="name a file in it: bench.csv")
    ending = path.suffix.lstrip(".").lower()
    if ending not in FORMATS:
        raise WorkloadError(f"--output {clipped(text, quote=True)}: not a format ({', '.join(FORMATS)}) nor a file "
                            "ending .md, .csv, .json or .jsonl", hint="--output csv prints CSV; --output bench.csv "
                                                                    "writes it")
    _check_writable(path, text)
    return Output("md", path, ending)


def _check_writable(path: Path, text: str) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise WorkloadError(f"--output {clipped(text, quote=True)}: the folder {clipped(str(folder))} does not exist",
                            hint="create it first, or name a file in an existing folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise WorkloadError(f"--output {clipped(text, quote=True)} cannot be written (no write permission)",
                            hint="name a file in a folder you can write")


def write(rows: Sequence[Mapping[str, Any]], output: Output) -> str | None:
    """The rows written to ``output.path`` in its format; why not (one line) when the write failed, else None."""
    if output.path is None:
        return None
    try:
        output.path.write_text(render(rows, output.file_format or "md"), encoding="utf-8")
    except OSError as exc:
        return f"--output {output.path}: {exc.strerror or exc}"
    return None
