"""`cardbench ready --data DIR`: how fast the user's own training data reads from where it lives, for the data IO row.

A model's fine-tune reads text (plain or JSONL), not the images the data IO workload's loader sweep is built for, so
this is a plain sequential read of the folder's files (or of one file), in 1 MiB chunks, for at most ``READ_S``
seconds, in the page cache's state as found (nothing is dropped: that needs root and would slow every other user of
the host). Links are not followed out of the folder; a file that cannot be read is counted, not fatal.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

READ_S = 2.0
CHUNK = 1 << 20
MAX_FILES = 100_000   # a folder of millions is sampled by its first files in walk order, said so
# UTF-8 bytes of training text one token stands for: about 4 for English with a Llama-3 tokenizer (tiktoken's rule
# of thumb), fewer for code, more per token for Chinese; it turns the fine-tune's tokens/s into the bytes/s it reads
BYTES_PER_TOKEN = 4


@dataclass(frozen=True)
class DataRead:
    files: int
    bytes: int
    seconds: float
    unreadable: int
    complete: bool   # every file read to its end within the time cap

    @property
    def bytes_per_s(self) -> float | None:
        return self.bytes / self.seconds if self.seconds > 0 and self.bytes else None


def _files(root: Path):
    if root.is_file():
        yield root
        return
    for folder, dirs, names in os.walk(root):   # os.walk follows no link to a folder
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if not path.is_symlink() and path.is_file():
                yield path


def read(root: Path, seconds: float = READ_S) -> DataRead:
    """Read ``root``'s files until their end or ``seconds``; what was read and how long it took."""
    began = time.perf_counter()
    files = done = unreadable = 0
    complete = True
    for number, path in enumerate(_files(root)):
        if number >= MAX_FILES or time.perf_counter() - began > seconds:
            complete = False
            break
        try:
            with open(path, "rb", buffering=0) as handle:
                while chunk := handle.read(CHUNK):
                    done += len(chunk)
                    if time.perf_counter() - began > seconds:
                        complete = False
                        break
            files += 1
        except OSError:
            unreadable += 1
    return DataRead(files, done, time.perf_counter() - began, unreadable, complete)
