"""The export's environment stage: the doctor and collect_env run in the background while the runs are drawn,
and env.json / env.txt are written from their answers.

collect_env takes seconds whatever the runs, so it starts first; when the doctor runs during the export it
starts after the runs are read and the devices detected (a long run's reading is two decoding processes, which
its probe's torch import would wait beside; one NVML user at a time), and collect_env after it on the same
thread (not beside the doctor, whose probe times the CUDA initialisation the report states).
"""

from __future__ import annotations

import concurrent.futures
import threading
from dataclasses import dataclass, replace
from typing import Any

from tui import doctor
from tui.report import envinfo
from tui.report.bundle import Bundle
from tui.report.export.inputs import ExportInputs
from tui.report.export.reading import Devices
from tui.report.i18n import Words
from tui.redact import Redactor


@dataclass(frozen=True)
class Background:
    """What runs beside the export: collect_env's job, and the doctor's future when the doctor runs now."""

    collect: Any = None     # envinfo.CollectEnvJob
    doctor: "concurrent.futures.Future[tuple[Any, Any]] | None" = None


def collect_env_first(inputs: ExportInputs) -> Background:
    """collect_env started now when the caller has the doctor's checks; else it waits for the doctor."""
    if inputs.doctor_checks is None:
        return Background()
    return Background(collect=_collect_env_in_background(inputs))


def doctor_then_collect_env(inputs: ExportInputs, started: Background) -> Background:
    """The doctor on a thread of its own when the caller has no checks, then collect_env from that thread."""
    if inputs.doctor_checks is not None:
        return started
    inputs.say("running the doctor, then collect_env (python -m torch.utils.collect_env), in the background")

    def both() -> tuple[Any, Any]:
        try:
            checks: Any = doctor.run_checks()
        except Exception as exc:  # noqa: BLE001 - the report is written without it, and says so
            checks = exc
        # None when the interpreter is exiting: an export cut short starts no child after it
        return checks, envinfo.CollectEnvJob() if threading.main_thread().is_alive() else None

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="cardbench-export-doctor")
    try:
        return replace(started, doctor=pool.submit(both))
    finally:
        pool.shutdown(wait=False)   # the thread ends with the checks


def write_environment(inputs: ExportInputs, background: Background, redactor: Redactor, devices: Devices,
                      bundle: Bundle) -> envinfo.EnvInfo:
    """env.json and env.txt, once the doctor's and collect_env's answers are in (waited for here)."""
    checks, doctor_note, collect = _doctor_answer(inputs, background)
    if not collect.done():
        inputs.say("waiting for collect_env")
    env = envinfo.gather(checks, redactor.environment(inputs.environ), sample=devices.sample,
                         doctor_note=doctor_note, devices_note=devices.note, collect=collect)
    bundle.add_json("env.json", env.to_dict())
    bundle.add_text("env.txt", envinfo.env_text(env))
    return env


def _doctor_answer(inputs: ExportInputs, background: Background) -> tuple[Any, str | None, Any]:
    """(the doctor's checks, the note on where they come from, collect_env's job)."""
    if background.doctor is None:
        return inputs.doctor_checks, inputs.doctor_note, background.collect
    if not background.doctor.done():
        inputs.say("waiting for the doctor")
    checks, collect = background.doctor.result()
    if collect is None:   # the interpreter was exiting when the doctor ended: nothing waits for it
        collect = _collect_env_in_background(inputs)
    if isinstance(checks, Exception):
        return [], Words(inputs.lang)("doctor_failed", why=f"{type(checks).__name__}: {checks}"), collect
    return checks, inputs.doctor_note or Words(inputs.lang)("doctor_at_export"), collect


def _collect_env_in_background(inputs: ExportInputs) -> envinfo.CollectEnvJob:
    inputs.say("collecting the environment in the background (python -m torch.utils.collect_env)")
    return envinfo.CollectEnvJob()
