"""`cardbench ready` as a child of the workbench: started detached, its lines read back, stopped as Ctrl+C stops it
(UI-free, torch-free).

    child = ReadyChild.start(["ready", "--model", "tiny"], runs_dir=root, output=Path("."))
    for line in child.new_lines(): ...      # what it said since the last call (stdout and stderr, in order)
    child.stop()                            # SIGINT: the running step stops, the rest is skipped, the table and
                                            # the bundle are still written
    child.returncode                        # None while it runs

Detached (`tui.detach`: its own session, stdout and stderr into a log under the runs dir): a workbench that quits or
loses its terminal asks it to stop and leaves it to write what it measured, where a pipe to a gone reader would
have failed its last lines and the bundle. SIGINT, not SIGTERM: the command answers it between two steps as well as
within one (`tui.ready.runs`), SIGTERM only within one.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import re
from dataclasses import dataclass

from workloads.safe_text import printable

# under the runs dir, appended: what each readiness run of this workbench said (one file a workbench: two on the same
# runs dir never read each other's lines)
LOG = ".ready-{pid}.log"
ENTRY: str | None = None   # the module to run (None: `tui.detach.ENTRY`, cardbench's); tests point it at a stand-in
MAX_READ = 1 << 20   # bytes read at one call: a chatty child never holds the reader for long
# a phase as the command's progress begins it (`tui.headless.progress.Progress.begin`, which the workbench may not
# import: a package cycle; tests/tui/test_app_ready.py reads what begin() writes with this)
_PHASE = re.compile(r"^cardbench: \[(\d+)/(\d+)\] (.+)$")


@dataclass(frozen=True)
class Phase:
    """The phase the command said it began: the ``at``-th of ``of``."""

    at: int
    of: int
    name: str


def phase_of(line: str) -> Phase | None:
    """The phase a progress line begins, or None for any other line."""
    match = _PHASE.match(line)
    return Phase(int(match[1]), int(match[2]), match[3]) if match else None


class ReadyChild:
    """One `cardbench ready` process and the part of the log it writes."""

    def __init__(self, process: subprocess.Popen, log: Path, offset: int) -> None:
        self.process = process
        self.log = log
        self._offset = offset
        self._partial = b""
        self.stop_requested = False

    @classmethod
    def start(cls, args: list[str], *, runs_dir: Path, output: Path) -> "ReadyChild":
        """Start ``cardbench --runs-dir RUNS ready ... -o OUTPUT``; OSError when it cannot start."""
        from tui import detach   # at the first start: it brings the events' protocol, which the first frame leaves

        runs_dir = Path(runs_dir).absolute()
        runs_dir.mkdir(parents=True, exist_ok=True)
        log = runs_dir / LOG.format(pid=os.getpid())
        offset = log.stat().st_size if log.exists() else 0
        process = detach.spawn_detached([*args, "-o", str(Path(output).absolute())], runs_dir=runs_dir,
                                        log_path=log, module=ENTRY)
        return cls(process, log, offset)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    def new_lines(self) -> list[str]:
        """The whole lines written since the last call, printable (a child's words reach a terminal); once the
        process has ended, a last line without its newline too."""
        ended = self.returncode is not None
        try:
            with open(self.log, "rb") as f:
                f.seek(self._offset)
                chunk = f.read(MAX_READ)
        except OSError:
            chunk = b""
        self._offset += len(chunk)
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        if ended and len(chunk) < MAX_READ and self._partial:
            lines.append(self._partial)
            self._partial = b""
        return [printable(raw.decode("utf-8", errors="replace").rstrip("\r")) for raw in lines]

    def stop(self) -> None:
        """SIGINT, as Ctrl+C in its terminal: it stops the running step and still writes what was measured."""
        self.stop_requested = True
        if self.returncode is None:
            try:
                os.kill(self.process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL its group: a last resort (it ignored the stop)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
