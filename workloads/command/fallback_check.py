"""`cardbench run command --cpu-fallback-check on`: the parent's side of the check in the user's own PyTorch job.

Only a Python interpreter running a script or ``-m MODULE`` can take it: the job then runs as
``python [its options] -m workloads.command.fallback_launch SCRIPT ARGS`` (:mod:`~workloads.command.fallback_launch`
profiles a few optimizer steps after a warm-up) and this says, when the job has ended, what it found: a
``cpu_fallback`` warning per op in the words of the other workloads (:mod:`workloads.child.cpu_fallback_said`) and
the figures into the result. Off by default: it runs the user's code under a launcher of ours and profiles it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloads.child.cpu_fallback_said import figures, say
from workloads.child.cpu_fallback_trace import FallenBackOp, Findings
from workloads.child.harness import Emitter, WorkloadError, log
OUT_ENV = "CARDBENCH_CPU_FALLBACK_OUT"   # the file the launcher writes its findings to
WARMUP = 2   # optimizer steps left alone first: the first allocates and picks kernels, the second settles
LAUNCHER = "workloads.command.fallback_launch"
_PYTHON = re.compile(r"python[0-9.]*$")
_VALUED = frozenset({"-X", "-W"})   # the interpreter's options that take the next word as their value
_ROOT = str(Path(__file__).resolve().parents[2])   # where `workloads` is importable from, for the job's python


def _launched(command: list[str]) -> list[str] | None:
    """``command`` run through the launcher, or None where it is not ``python [options] (SCRIPT | -m MODULE)``."""
    if not _PYTHON.match(os.path.basename(command[0])):
        return None
    at = 1
    while at < len(command) and command[at].startswith("-") and command[at] not in ("-m", "-"):
        if command[at] == "-c":
            return None
        at += 2 if command[at] in _VALUED else 1
    if at >= len(command) or command[at] == "-" or (command[at] == "-m" and at + 1 >= len(command)):
        return None
    return [*command[:at], "-m", LAUNCHER, *command[at:]]


@dataclass
class FallbackCheck:
    """The check as asked: ``on``, the launched ``command``; ``out``, the file the launcher writes (once made)."""

    command: list[str]
    on: bool = False
    out: str | None = None

    @classmethod
    def of(cls, mode: str, command: list[str]) -> "FallbackCheck":
        """The command as it runs; bad input (``on`` for a command that is no Python script) refused in one line."""
        if mode != "on":
            return cls(command)
        launched = _launched(command)
        if launched is None:
            raise WorkloadError(f"--cpu-fallback-check on needs a Python job (python SCRIPT or python -m MODULE), "
                                f"not {' '.join(command[:2])}", hint="leave the check off for this command")
        return cls(launched, on=True)

    def env(self) -> dict[str, str]:
        """The job's extra environment: the file to write and where `workloads` is (made once the run is real,
        not on an arguments check)."""
        if not self.on:
            return {}
        fd, self.out = tempfile.mkstemp(prefix="cardbench-fallback-", suffix=".json")
        os.close(fd)
        path = os.environ.get("PYTHONPATH")
        return {OUT_ENV: self.out, "PYTHONPATH": f"{path}{os.pathsep}{_ROOT}" if path else _ROOT}

    def collect(self, emitter: Emitter) -> dict[str, Any]:
        """What the job's launcher wrote, said and returned as the result's figures; the file removed."""
        if self.out is None:
            return {}
        try:
            text = Path(self.out).read_text(encoding="utf-8")
            data = json.loads(text) if text else None   # empty: the launcher never got to write
        except (OSError, ValueError):
            data = None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.out)
        self.out = None
        return _said(emitter, data)


def _said(emitter: Emitter, data: dict[str, Any] | None) -> dict[str, Any]:
    if data is None:
        log("CPU fallback check: not run: the job ended before its launcher wrote what it saw")
        return {}
    if not data.get("steps"):
        log("CPU fallback check: saw no step: the job made no optimizer step (torch.optim's step() is what it "
            "counts as the job's steps)")
        return {}
    if data.get("findings") is None:
        log(f"CPU fallback check: not run: the job made {data['steps']} optimizer step(s), all of them warm-up")
        return {}
    found = findings_of(data["findings"])
    say(emitter, data["device"], found, data["watched"])
    return figures(found, data["watched"])


def findings_of(data: dict[str, Any]) -> Findings:
    """:class:`Findings` back from the launcher's JSON (``dataclasses.asdict``)."""
    ops = tuple(FallenBackOp(**op) for op in data["ops"])
    return Findings(**{**data, "ops": ops})
