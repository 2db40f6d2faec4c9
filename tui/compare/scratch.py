"""The temporary folder compare rebuilds a run in, removed on every way out.

A return, an exception and Ctrl+C unwind through the ``with``; SIGTERM and SIGHUP (a closed SSH session) would
end the process on the spot and leave up to ``CAP_TOTAL`` of someone's bundle in the temporary directory, so
while the folder exists they are turned into the KeyboardInterrupt that unwinds it. Only the first: a second
signal must not cut the removal short. A signal the process was told to ignore (nohup) stays ignored.
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield   # only the main thread may set handlers; a caller in a worker thread cleans up on its own exits
        return
    fired = False

    def interrupt(signum: int, frame: Any) -> None:
        nonlocal fired
        if not fired:
            fired = True
            raise KeyboardInterrupt

    before = {s: signal.getsignal(s) for s in SIGNALS}
    for s, handler in before.items():
        if handler == signal.SIG_DFL:
            signal.signal(s, interrupt)
    try:
        yield
    finally:
        for s, handler in before.items():
            if handler == signal.SIG_DFL:
                signal.signal(s, handler)


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    with _signals_interrupt(), tempfile.TemporaryDirectory(prefix="cardbench-compare-") as tmp:
        yield Path(tmp)
