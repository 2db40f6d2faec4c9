"""The headless suite planned for an accelerator and run with torch-free stand-in children (no workload runs)."""

from __future__ import annotations

import asyncio
import io
import sys

from paths import CHILDREN
from tui.headless.plan import suite_jobs
from tui.headless.progress import Progress
from tui.headless.suite import SuiteState, run_suite
from tui.store import RunStore
from tui.session import RunSession
from workloads.runner import Runner

STEADY = [sys.executable, str(CHILDREN / "steady.py"), "2", "0.01"]


def run_with_stand_ins(tmp_path, monkeypatch, commands: dict[str, list[str]], suite: str = "standard",
                       amp: str = "bf16"):
    """The ``suite`` with the doctor's ``amp``, each workload started as ``commands`` says (else a short steady
    child): (the arguments each was started with, the suite's state, run dirs by workload, what the terminal said)."""
    started: dict[str, list[str]] = {}

    def for_workload(cls, name, args=(), **kw):
        started[name] = list(args)
        return cls(commands.get(name, STEADY), **kw)

    monkeypatch.setattr(Runner, "for_workload", classmethod(for_workload))
    jobs, _ = suite_jobs(suite, None, accelerator=True, device=None, amp=amp)
    state = SuiteState()
    out = io.StringIO()
    asyncio.run(run_suite(jobs, RunSession(RunStore(tmp_path / "runs")), state,
                          Progress(phases=len(jobs), stream=out, tty=False), [], suite))
    return started, state, dict(zip(state.ran, state.run_dirs)), out.getvalue()
