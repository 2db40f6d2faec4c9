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
from typing import Any

from tui.telemetry.cli_tool import run_bounded
from tui.telemetry.sample import DeviceSample, normalize_bus_id

REPO_ROOT = Path(__file__).resolve().parents[2]
PROBE_TIMEOUT_S = 60.0


def probe_env() -> dict[str, str]:
    """The child's environment: the repo importable even without the editable install."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_probe(args: list[str] | tuple[str, ...] = (), timeout: float = PROBE_TIMEOUT_S,
              python: str | None = None, module: str = "workloads.child.probe") -> tuple[dict[str, Any] | None, str | None]:
    """Run the probe child; (its JSON, None) or (None, one-line reason). Never waits past ``timeout``."""
    done = run_bounded([python or sys.executable, "-m", module, *args], timeout, env=probe_env(), cwd=str(REPO_ROOT))
    for line in reversed(done.stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line), None
            except ValueError:
                break
    if done.problem and done.returncode is None:
        return None, f"torch probe: {done.problem}"
    tail = [line for line in (done.stderr or done.stdout).strip().splitlines() if line.strip()]
    return None, f"torch probe: exit {done.returncode}: {tail[-1].strip() if tail else 'no output'}"


def devices_from_probe(result: dict[str, Any]) -> list[DeviceSample]:
    """The probe's devices as DeviceSamples (static facts only: it ran once)."""
    out = []
    for d in result.get("devices") or ():
        bus = d.get("bus_id")
        total = d.get("total_memory")
        out.append(DeviceSample(
            index=d.get("index"),
            name=d.get("name"),
            bus_id=normalize_bus_id(bus) if bus else None,
            mem_total_bytes=int(total) if isinstance(total, (int, float)) else None,
            compute_capability=d.get("arch") or d.get("capability"),
            source="torch",
        ))
    return out


def describe_probe(result: dict[str, Any] | None, error: str | None) -> str:
    """One line: the torch build and what it sees, or why it could not tell."""
    if result is None:
        return error or "torch probe: failed"
    if result.get("torch_error"):
        return f"torch does not import ({result['torch_error']})"
    built = ", ".join(f"{k.upper()} {result[k]}" for k in ("cuda", "hip") if result.get(k))
    head = f"torch {result.get('torch')}" + (f" (built for {built})" if built else " (CPU-only build)")
    types = result.get("device_types") or {}
    seen = [f"{name}: {t.get('count', '?')} device(s)" for name, t in types.items() if t.get("available")]
    if seen:
        return f"{head}; sees {', '.join(seen)}"
    why = next((f"{name}: {t['error']}" for name, t in types.items() if t.get("error")), None)
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
        self.result: dict[str, Any] | None = None
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
        if self.result.get("torch_error"):
            errors.append(f"torch: {self.result['torch_error']}")
        return devices_from_probe(self.result), errors

    def describe(self) -> str:
        return describe_probe(self.result, self.error) if self.done else "torch probe still running"

    def close(self) -> None:
        pass  # the child is bounded by its timeout; the daemon thread ends with it
