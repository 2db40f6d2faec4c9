"""What torch can tell, asked of a short-lived child (`python -m workloads.child.probe`), never imported here.

The child imports torch (seconds), so it runs once, in the background, and its
answer is cached: the first samples come without it and later ones include it.
A hung child is killed (its whole process group) after ``timeout`` seconds.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from tui.telemetry.cli_tool import run_bounded
from tui.telemetry.sample import DeviceSample, normalize_bus_id
from workloads.probe_report import ProbeReport

REPO_ROOT = Path(__file__).resolve().parents[2]
PROBE_TIMEOUT_S = 60.0


def probe_env() -> dict[str, str]:
    """The child's environment: the repo importable even without the editable install."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_probe(args: list[str] | tuple[str, ...] = (), timeout: float = PROBE_TIMEOUT_S,
              python: str | None = None, module: str = "workloads.child.probe") -> tuple[ProbeReport | None, str | None]:
    """Run the probe child; (its report, None) or (None, one-line reason). Never waits past ``timeout``."""
    done = run_bounded([python or sys.executable, "-m", module, *args], timeout, env=probe_env(), cwd=str(REPO_ROOT))
    for line in reversed(done.stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return ProbeReport.from_dict(json.loads(line)), None
            except ValueError:
                break
    if done.problem and done.returncode is None:
        return None, f"torch probe: {done.problem}"
    tail = [line for line in (done.stderr or done.stdout).strip().splitlines() if line.strip()]
    return None, f"torch probe: exit {done.returncode}: {tail[-1].strip() if tail else 'no output'}"


def devices_from_probe(report: ProbeReport) -> list[DeviceSample]:
    """The probe's devices as DeviceSamples (static facts only: it ran once)."""
    return [DeviceSample(
        index=d.index,
        name=d.name,
        bus_id=normalize_bus_id(d.bus_id) if d.bus_id else None,
        mem_total_bytes=d.total_memory,
        compute_capability=d.target,
        source="torch",
    ) for d in report.devices]


def describe_probe(report: ProbeReport | None, error: str | None) -> str:
    """One line: the torch build and what it sees, or why it could not tell."""
    if report is None:
        return error or "torch probe: failed"
    if report.torch_error:
        return f"torch does not import ({report.torch_error})"
    built = ", ".join(f"{name} {version}" for name, version in (("CUDA", report.cuda), ("HIP", report.hip)) if version)
    head = f"torch {report.torch}" + (f" (built for {built})" if built else " (CPU-only build)")
    types = report.device_types
    seen = [f"{name}: {t.count if t.count is not None else '?'} device(s)" for name, t in types.items() if t.available]
    if seen:
        return f"{head}; sees {', '.join(seen)}"
    why = next((f"{name}: {t.error}" for name, t in types.items() if t.error), None)
    return f"{head}; sees no accelerator" + (f" ({why})" if why else "")


class TorchProbe:
    """A device source backed by one background run of the probe child."""

    name = "torch"

    def __init__(self, args: tuple[str, ...] = (), timeout: float = PROBE_TIMEOUT_S, python: str | None = None,
                 module: str = "workloads.child.probe") -> None:
        self.args = args
        self.timeout = timeout
        self.python = python
        self.module = module
        self.result: ProbeReport | None = None
        self.error: str | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def available(self) -> bool:
        return True

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cardbench-torch-probe", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self.result, self.error = run_probe(self.args, self.timeout, self.python, self.module)
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        self.start()
        return self._done.wait(timeout)

    def read(self) -> tuple[list[DeviceSample], list[str]]:
        self.start()
        if not self._done.is_set():
            return [], []
        if self.result is None:
            return [], [self.error or "torch probe: failed"]
        errors = []
        if self.result.torch_error:
            errors.append(f"torch: {self.result.torch_error}")
        return devices_from_probe(self.result), errors

    def describe(self) -> str:
        return describe_probe(self.result, self.error) if self.done else "torch probe still running"

    def close(self) -> None:
        pass  # the child is bounded by its timeout; the daemon thread ends with it
