"""A runs dir that stops taking writes mid-run, injected: the run store's appends fail with an errno.

`fail_run_writes(after, code)` lets ``after`` more writes through to the files `tui.store` writes
(config.json, events.jsonl, run.log, telemetry.jsonl), then every write raises ``OSError(code)``, as a full disk
(ENOSPC), a filesystem gone read-only (EROFS) or a file made unwritable (EACCES, EPERM) does.
Importable by a test's child process too (``python -c "import store_faults; ..."``).
"""
from __future__ import annotations

import builtins
import errno
import os
from typing import Any, Callable

import tui.store


class _FailingFile:
    def __init__(self, handle: Any, budget: list[int], code: int):
        self._handle, self._budget, self._code = handle, budget, code

    def write(self, text: str) -> int:
        if self._budget[0] <= 0:
            raise OSError(self._code, os.strerror(self._code))
        self._budget[0] -= 1
        return self._handle.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, close, closed, name: the real file's
        return getattr(self._handle, name)

    def __enter__(self) -> "_FailingFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def fail_run_writes(after: int, code: int = errno.ENOSPC) -> Callable[[], None]:
    """From now on the run store's writes fail after ``after`` of them; returns what undoes it."""
    budget = [after]
    real_open = builtins.open

    def failing_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        return _FailingFile(handle, budget, code) if set(mode) & set("wax") else handle

    tui.store.open = failing_open  # the module's name shadows the builtin for tui.store only

    def undo() -> None:
        del tui.store.open

    return undo
