"""env.json / env.txt: what software and hardware the numbers were measured on.

``python -m torch.utils.collect_env`` runs in a child with a timeout (it shells
out to pip, conda, nvidia-smi and lscpu, and a broken driver can stall it);
when it is missing, fails or is slow, the report says so and carries on.
torch is never imported in this process.

It takes seconds whatever the runs (importing torch in the child, then pip and
lscpu), so the export starts it early as a :class:`CollectEnvJob` and takes its
answer when env.json is written: the wait overlaps reading and drawing the runs.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from tui import __version__
from tui.doctor.check import check_value, chinese_of, field_of, find_check, id_of, said_json, value_of
from workloads.facts.formatting import device_label, format_bytes, format_duration, reading
from tui.telemetry.cli_tool import run_bounded
from workloads.rundir.sample_fields import (BUS_ID, CPU_COUNT, DEVICES, DRIVER_VERSION, ERRORS, HOST, HOSTNAME,
                                            INDEX, MEM_TOTAL_BYTES, NAME, PCI_VENDOR, PCI_VENDOR_ID,
                                            RUNTIME_VERSION, SOURCE, SOURCES)

COLLECT_ENV_TIMEOUT_S = 90.0


@dataclass
class CollectEnv:
    text: str | None            # the tool's own output, verbatim
    fields: dict[str, Any]      # "Key: value" lines, and multi-line sections as lists
    seconds: float | None
    note: str | None = None     # why it is missing or partial


def parse_collect_env(text: str) -> dict[str, Any]:
    """'PyTorch version: 2.4.0' lines -> a dict; the CPU block and library lists -> lists of lines."""
    out: dict[str, Any] = {}
    section: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            section = None
            continue
        if line.startswith("Collecting environment information"):
            continue
        if section is not None:
            out[section].append(line.strip())
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip() or key.startswith((" ", "[")):
            out.setdefault("other", []).append(line.strip())
            continue
        key = key.strip()
        if value.strip():
            out[key] = value.strip()
        else:  # "CPU:" or "Versions of relevant libraries:" opens a block that runs to the next blank line
            section = key
            out[key] = []
    return out


def run_collect_env(python: str = sys.executable, timeout: float = COLLECT_ENV_TIMEOUT_S) -> CollectEnv:
    started = time.monotonic()
    # its own process group, killed whole on timeout: collect_env's pip and nvidia-smi children go with it
    done = run_bounded([python, "-W", "ignore", "-m", "torch.utils.collect_env"], timeout)
    seconds = time.monotonic() - started
    text = done.stdout.strip("\n")
    if done.returncode is None and "cannot start" in (done.problem or ""):
        return CollectEnv(None, {}, None, f"could not run collect_env: {done.problem}")
    if done.returncode is None:
        return CollectEnv(text or None, parse_collect_env(text), None,
                          f"`python -m torch.utils.collect_env` did not finish within {timeout:.0f} s"
                          + (" (partial output kept)" if text else ""))
    if done.returncode != 0 or not text:
        err = (done.stderr or "").strip().splitlines()
        why = err[-1] if err else f"exit code {done.returncode}"
        return CollectEnv(text or None, parse_collect_env(text), seconds,
                          f"`python -m torch.utils.collect_env` failed: {why[:300]}")
    return CollectEnv(text, parse_collect_env(text), seconds)


class CollectEnvJob:
    """:func:`run_collect_env` in a thread, started now; :meth:`result` waits for its answer.

    The child is ``run_bounded``'s (its own process group, killed on timeout and, through the registry
    there, when the interpreter exits): an export cut short by Ctrl+C or SIGTERM leaves no collect_env behind.
    """

    def __init__(self, timeout: float = COLLECT_ENV_TIMEOUT_S):
        self._answer: CollectEnv | None = None
        self._thread = threading.Thread(target=self._run, args=(timeout,), name="collect_env", daemon=True)
        self._thread.start()

    def _run(self, timeout: float) -> None:
        try:
            # looked up at call time: the tests replace run_collect_env on this module
            self._answer = run_collect_env(timeout=timeout)
        except Exception as exc:  # noqa: BLE001 - the report says so, as for a collect_env that failed
            self._answer = CollectEnv(None, {}, None, f"could not run collect_env: {type(exc).__name__}: {exc}")

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> CollectEnv:
        self._thread.join()
        assert self._answer is not None  # _run always sets it before the thread ends
        return self._answer


@dataclass
class EnvInfo:
    collect_env: CollectEnv
    devices: dict[str, Any] | None          # one telemetry snapshot: cardbench's device detection
    devices_note: str | None
    doctor: list[dict[str, Any]]
    doctor_note: str | None
    cuda_init: dict[str, Any]
    environment: dict[str, str]             # allow-listed and redacted
    python: str = field(default_factory=lambda: sys.version.split()[0])
    platform: str = field(default_factory=platform.platform)
    cardbench: str = __version__

    def to_dict(self) -> dict[str, Any]:
        return {
            "cardbench": self.cardbench, "python": self.python, "platform": self.platform,
            "collect_env": {"fields": self.collect_env.fields, "seconds": self.collect_env.seconds,
                            "note": self.collect_env.note, "text": self.collect_env.text},
            "device_detection": self.devices, "device_detection_note": self.devices_note,
            "doctor": self.doctor, "doctor_note": self.doctor_note,
            "cuda_initialisation": self.cuda_init,
            "environment": self.environment,
        }


def normalize_checks(checks: Sequence[Any] | None) -> list[dict[str, Any]]:
    """DoctorCheck objects or their dicts (an old doctor.json's too) -> DoctorCheck.to_dict()-shaped dicts."""
    out = []
    for c in checks or ():
        text = {key: str(field_of(c, key) or "") for key in ("name", "status", "evidence", "hint")}
        hint_id = field_of(c, "hint_id")  # the catalogue's id of its hint (absent before ids)
        # its own words: the messages (``said``), and their Chinese (``zh``, what the report in Chinese says; an
        # old doctor.json has only that)
        out.append({"id": id_of(c), **text, "value": value_of(c), "unit": field_of(c, "unit"),
                    "said": said_json(c), "zh": chinese_of(c),
                    **({"hint_id": hint_id} if isinstance(hint_id, str) and hint_id else {})})
    return out


def cuda_init_from(checks: list[dict[str, Any]]) -> dict[str, Any]:
    """The doctor measures the CUDA initialisation time in its torch probe child; take its word."""
    found = find_check(checks, "device.init")
    if found is None:
        return {"status": None, "seconds": None, "evidence": "the doctor did not run, so it was not measured"}
    return {"status": found["status"], "seconds": check_value(checks, "device.init"), "evidence": found["evidence"]}


def gather(doctor_checks: Sequence[Any] | None, environment: dict[str, str], sample: Any = None,
           doctor_note: str | None = None, collect_env_timeout: float = COLLECT_ENV_TIMEOUT_S,
           devices_note: str | None = None, collect: CollectEnv | CollectEnvJob | None = None) -> EnvInfo:
    """``sample`` is the export's one device snapshot (None when detection failed, ``devices_note`` says why).

    ``collect``: collect_env's answer, or the job started earlier that gives it; when None it runs now.
    """
    if collect is None:
        collect = run_collect_env(timeout=collect_env_timeout)
    elif isinstance(collect, CollectEnvJob):
        collect = collect.result()
    checks = normalize_checks(doctor_checks)
    return EnvInfo(collect_env=collect, devices=sample.to_dict() if sample is not None else None,
                   devices_note=devices_note, doctor=checks, doctor_note=doctor_note,
                   cuda_init=cuda_init_from(checks), environment=environment)


def env_text(info: EnvInfo) -> str:
    """env.txt: the same facts for a person."""
    lines = [f"cardbench {info.cardbench}   Python {info.python}   {info.platform}", ""]
    lines.append("== python -m torch.utils.collect_env ==")
    if info.collect_env.note:
        lines.append(f"note: {info.collect_env.note}")
    lines.append(info.collect_env.text or "(no output)")
    lines += ["", "== cardbench device detection =="]
    if info.devices_note:
        lines.append(info.devices_note)
    devices = (info.devices or {}).get(DEVICES) or []
    if not devices:
        lines.append("no accelerator detected (sources answering: "
                     + (", ".join((info.devices or {}).get(SOURCES) or []) or "none") + ")")
    for d in devices:
        lines.append(f"{device_label(d.get(INDEX), d.get(NAME))}  vendor {reading(d.get(PCI_VENDOR))} "
                     f"({reading(d.get(PCI_VENDOR_ID))})  bus {reading(d.get(BUS_ID))}  "
                     f"memory {format_bytes(d.get(MEM_TOTAL_BYTES))}  driver {reading(d.get(DRIVER_VERSION))}  "
                     f"runtime {reading(d.get(RUNTIME_VERSION))}  via {reading(d.get(SOURCE))}")
    host = (info.devices or {}).get(HOST) or {}
    if host:
        lines.append(f"host {reading(host.get(HOSTNAME))}: {reading(host.get(CPU_COUNT))} CPUs, "
                     f"memory {format_bytes(host.get(MEM_TOTAL_BYTES))}")
    for err in (info.devices or {}).get(ERRORS) or []:
        lines.append(f"source error: {err}")
    lines += ["", "== doctor =="]
    if info.doctor_note:
        lines.append(f"note: {info.doctor_note}")
    for c in info.doctor:
        lines.append(f"{c['status']:<4}  {c['name']}: {c['evidence']}" + (f"  (hint: {c['hint']})" if c["hint"] else ""))
    if not info.doctor:
        lines.append("(not run)")
    lines += ["", "== CUDA initialisation ==",
              f"{format_duration(info.cuda_init.get('seconds'))}  ({info.cuda_init.get('evidence')})", "",
              "== environment variables (allow-list only; secret-looking values redacted) =="]
    lines += [f"{k}={v}" for k, v in info.environment.items()] or ["(none of the allow-listed variables is set)"]
    return "\n".join(lines) + "\n"


def dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n"


def hostname() -> str:
    try:
        return os.uname().nodename or platform.node() or "host"
    except AttributeError:  # pragma: no cover - not POSIX
        return platform.node() or "host"
