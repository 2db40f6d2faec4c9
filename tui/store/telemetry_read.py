"""A long run's telemetry read on both cores: its later segments decoded by a child process while this one
decodes the earlier ones. UI-free.

A day of 8 devices at 1 Hz is ten 64 MiB segments of JSON: decoding them is most of ``cardbench export --run``
(~3.5 s of one core). From `SPLIT_FROM` segments on, where this process may use two cores, the later half and the
live file go to a child (``python -c``, a fresh interpreter: nothing of this process is inherited), which sends its
columns back pickled on its stdout; this process reads the earlier half meanwhile, then puts the two together
(`Telemetry.extend`). The result is the one reading them in order gives: the same samples, skipped lines and
problems, in the same order. A child that cannot start or fails is not an error: its parts are read here.

    telemetry, skipped = read_telemetry_run(run_dir / "telemetry.jsonl", problems)
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from tui.store.telemetry import Telemetry, read_telemetry_files
from workloads.cpus import usable_cpus
from workloads.rundir.read import Unreadable, read_buffers
from workloads.rundir.segments import segment_paths

SPLIT_FROM = 4   # rotated segments: below this (4 x 64 MiB of JSON) a child costs more than it saves
_ROOT = str(Path(__file__).resolve().parents[2])   # where `tui` is imported from, for the child
# -c, not -m: `-m tui.store.telemetry_read` ran this module a second time after tui.store had imported it, and said
# so on stderr (PYTHONWARNINGS=error made that an exit, and every read fell back to one process)
_CHILD = "import sys; from tui.store.telemetry_read import _main; sys.exit(_main(sys.argv[1:]))"


def read_telemetry_run(path: Path, problems: list[str], split_from: int = SPLIT_FROM) -> tuple[Telemetry, int]:
    """The usable samples of ``path`` (telemetry.jsonl) and its segments as columns, and how many lines were not;
    a segment that cannot be read is a problem; raises Unreadable when the live file cannot be read."""
    segments = segment_paths(path)
    if len(segments) < split_from or usable_cpus() < 2:
        return read_telemetry_files(read_buffers([*segments, path], path, problems))
    half = len(segments) // 2
    later = [*segments[half:], path]
    child = _start(later, path)
    try:
        telemetry, skipped = read_telemetry_files(read_buffers(segments[:half], path, problems))
        answer = _answer(child)
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
    if answer is None:   # read here, as if there had been no child
        theirs, their_skipped = read_telemetry_files(read_buffers(later, path, problems))
    else:
        theirs, their_skipped, their_problems, unreadable = answer
        problems.extend(their_problems)
        if unreadable is not None:
            raise Unreadable(unreadable)
    telemetry.extend(theirs)
    return telemetry, skipped + their_skipped


def _start(parts: list[Path], path: Path) -> subprocess.Popen[bytes] | None:
    # run from where this `tui` is (the working directory comes first on sys.path: a `tui` folder where the user
    # stands would be imported instead), so the paths go absolute
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (_ROOT, os.environ.get("PYTHONPATH"))))}
    try:
        return subprocess.Popen([sys.executable, "-c", _CHILD, os.path.abspath(path),
                                 *map(os.path.abspath, parts)], cwd=_ROOT, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return None


def _answer(child: subprocess.Popen[bytes] | None) -> tuple[Telemetry, int, list[str], str | None] | None:
    """What the child read, or None where it gave nothing usable (it could not start, died, or was cut short)."""
    if child is None:
        return None
    out, _ = child.communicate()
    if child.returncode != 0:
        return None
    try:
        answer = pickle.loads(out)   # noqa: S301 - our own child's output, written by _main below
    except Exception:  # noqa: BLE001 - anything but a whole answer: read the parts here
        return None
    return answer if isinstance(answer, tuple) and len(answer) == 4 and isinstance(answer[0], Telemetry) else None


def _main(argv: list[str]) -> int:
    path, parts = Path(argv[0]), [Path(p) for p in argv[1:]]
    problems: list[str] = []
    answer: tuple[Any, ...]
    try:
        telemetry, skipped = read_telemetry_files(read_buffers(parts, path, problems))
        answer = (telemetry, skipped, problems, None)
    except Unreadable as why:
        answer = (Telemetry(), 0, problems, str(why))
    sys.stdout.buffer.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0

