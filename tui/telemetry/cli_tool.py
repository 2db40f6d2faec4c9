"""Run a management CLI with a hard time limit, and say in one line why it gave no answer.

The CLI runs in its own process group and the whole group is killed on
timeout: a wrapper script's children (or a vendor tool's helpers) would
otherwise keep the output pipes open and the wait would last as long as they do.
"""

from __future__ import annotations

import atexit
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Callable


# children still running, killed as a group if the interpreter exits mid-call (the calls run in daemon threads)
_LIVE: set[subprocess.Popen] = set()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


@atexit.register
def _kill_live() -> None:
    for proc in list(_LIVE):
        if proc.poll() is None:
            _kill_group(proc)


@dataclass(frozen=True)
class CliResult:
    returncode: int | None   # None when it did not finish (timeout) or did not start
    stdout: str
    stderr: str
    problem: str | None      # one line when there is no usable answer


class _TooLong(Exception):
    """The CLI printed more than the caller takes."""


def _communicate_capped(proc: subprocess.Popen, timeout: float, cap: int) -> tuple[str, str]:
    """``communicate``, but reading at most ``cap`` bytes of stdout (and of stderr): past it `_TooLong`, before the
    rest is read, so a tool gone wrong costs no more memory than the cap."""
    deadline = time.monotonic() + timeout
    chunks: dict[int, list[bytes]] = {proc.stdout.fileno(): [], proc.stderr.fileno(): []}   # type: ignore[union-attr]
    sizes = dict.fromkeys(chunks, 0)
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            for key, _ in selector.select(left):
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fd)
                    continue
                sizes[key.fd] += len(data)
                if sizes[key.fd] > cap:
                    raise _TooLong()
                chunks[key.fd].append(data)
    proc.wait(max(0.0, deadline - time.monotonic()))
    out, err = (b"".join(chunks[f.fileno()]).decode(errors="replace") for f in (proc.stdout, proc.stderr))  # type: ignore[union-attr]
    return out, err


def run_bounded(argv: list[str], timeout: float, env: dict[str, str] | None = None,
                cwd: str | None = None, max_output: int | None = None) -> CliResult:
    """``argv`` run to its end within ``timeout`` s (its whole process group killed past it) and, with
    ``max_output``, within that many bytes of output (killed past it, before the rest is read)."""
    label = os.path.basename(argv[0])
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                text=True, errors="replace", start_new_session=True, env=env, cwd=cwd)
    except OSError as exc:
        return CliResult(None, "", "", f"{label}: cannot start: {exc}")
    _LIVE.add(proc)
    try:
        if max_output is None:
            out, err = proc.communicate(timeout=timeout)
        else:
            out, err = _communicate_capped(proc, timeout, max_output)
    except _TooLong:
        _kill_group(proc)
        proc.wait()
        return CliResult(None, "", "", f"{label} printed more than {max_output / 1e6:g} MB, more than any card table: "
                                       "not read (killed)")
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=2.0)
        except subprocess.TimeoutExpired:  # a child that left the group still holds the pipes
            out, err = "", ""
        return CliResult(None, out or "", err or "", f"{label} did not answer within {timeout:g} s (timed out, killed)")
    except BaseException:
        # Ctrl+C or an exiting caller: a probe in its own session would outlive us (holding a CUDA context)
        _kill_group(proc)
        raise
    finally:
        _LIVE.discard(proc)
    if proc.returncode != 0:
        lines = [line.strip() for line in ((err or "") + "\n" + (out or "")).splitlines() if line.strip()]
        return CliResult(proc.returncode, out, err, f"{label} exit {proc.returncode}: {lines[0] if lines else 'no output'}")
    return CliResult(0, out, err, None)


Runner = Callable[..., CliResult]   # run_bounded's signature: (argv, timeout, env=, cwd=, max_output=)
