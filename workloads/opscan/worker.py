"""The scan's worker: records the ops (once), then replays case after case from the one it is told.

Started by :mod:`workloads.opscan.supervisor` as ``python -m workloads.opscan.worker STATE_DIR FIRST_CASE``;
it may die on any case (a device fault, an abort) or hang, so it keeps nothing the
supervisor needs in memory: it says on stdout, one JSON object a line, ``begin`` before a case and
``row`` after it, and the supervisor keeps the journal. A case is one recorded
call in one dtype; cases are numbered call by call, dtypes within a call.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from workloads.catalogue import Message
from workloads.child.harness import WorkloadError
from workloads.opscan.state import RECORDING, ScanState, cases_of
from workloads.opscan.table import SLOWER_THAN_FP32


def say(**message: Any) -> None:
    sys.__stdout__.write(json.dumps(message) + "\n")
    sys.__stdout__.flush()


def record(state: ScanState, plan: dict[str, Any], device: Any) -> dict[str, Any]:
    import torch

    from workloads.opscan import sources
    from workloads.opscan.record import Recorder, merged

    started = time.perf_counter()
    calls = []
    for name in plan["sources"]:
        recorder = Recorder()
        sources.record_builtin(name, recorder, device, plan["seed"])
        calls += recorder.calls.values()
    if plan.get("model"):
        recorder = Recorder()
        sources.record_user_model(plan["model"], recorder, device, plan["seed"])
        calls += recorder.calls.values()
    if plan.get("opinfo") is not None:
        recorder = Recorder()
        sources.record_opinfo(plan["opinfo"], recorder, device, plan["seed"])
        calls += recorder.calls.values()
    dtypes = list(plan["dtypes"] or ["fp32", "fp16", "bf16"] + (["tf32"] if _has_tf32(device) else []))
    if "tf32" in dtypes and not _has_tf32(device):
        raise WorkloadError(f"--dtypes tf32: {device} has no TF32",
                            hint="TF32 needs an NVIDIA GPU of compute capability 8.0 (Ampere) or newer")
    recording = {"dtypes": dtypes, "calls": [c.to_json() for c in merged(calls)],
                 "record_s": time.perf_counter() - started, "torch": torch.__version__}
    state.write_json(RECORDING, recording)
    return recording


def _has_tf32(device: Any) -> bool:
    from workloads.child import device as dev  # imports torch: lazy, as torch is in this module

    return dev.has_tf32(device)


def torch_cpu() -> Any:
    import torch

    return torch.device("cpu")


def _warm_up(device: Any) -> None:
    """Start the thread pools and the device's libraries before the first timed case, so it is not the one
    timed with their start-up (tens of milliseconds on a CPU)."""
    import torch

    from workloads.opscan.replay import synchronize

    for where in {device, torch.device("cpu")}:
        a = torch.randn(256, 256, device=where)
        for _ in range(3):
            (a @ a).relu_().sum()
        synchronize(where)


def main(state_dir: str, first: int, restarted: bool = False) -> int:
    faulthandler.enable()  # a fault in a kernel leaves its traceback in run.log
    state = ScanState(Path(state_dir))
    plan = state.plan()
    from workloads.child import device as devices
    from workloads.opscan.inject import parse
    from workloads.opscan.record import Call
    from workloads.opscan.replay import Replayer

    try:
        device = devices.resolve(plan["device"])
        recording = state.recording() or record(state, plan, device)
    except WorkloadError as exc:
        # a catalogue hint (a Message) crosses the pipe as its English, as an error event carries it: json has no
        # Message (`--device npu` without torch_npu killed the worker with a TypeError, exit 1 for bad input)
        hint = exc.hint.en if isinstance(exc.hint, Message) else exc.hint
        say(fatal=exc.message, hint=hint, bad_input=exc.exit_code == 2)
        return exc.exit_code
    calls = [Call.from_json(c) for c in recording["calls"]]
    cases = cases_of(calls, recording["dtypes"])
    # a restarted worker says no versions: the first worker's stand for the whole scan
    say(recorded=len(calls), cases=len(cases), dtypes=recording["dtypes"], record_s=recording["record_s"],
        device=devices.name(device), versions={} if restarted else devices.versions(), pid=os.getpid())
    _warm_up(device)
    replayer = Replayer(device, parse(), repeats=plan["repeats"], seed=plan["seed"])
    given_up = state.given_up()
    cpu_ms: dict[int, float | None] = {}
    fp32_ms: dict[int, float | None] = {}
    for k in range(first, len(cases)):
        i, dtype = cases[k]
        call = calls[i]
        row: dict[str, Any] = {"case": k, "call": i, "op": call.op, "dtype": dtype}
        if (call.op, dtype) in given_up:
            say(row={**row, "status": None, "message": "not run: the op crashed or hung in this dtype already"})
            continue
        say(begin=row)
        outcome = replayer.run(call, dtype, i)
        if dtype == "fp32":
            fp32_ms[i] = outcome.device_ms
        elif outcome.device_ms and fp32_ms.get(i) and outcome.device_ms > SLOWER_THAN_FP32 * fp32_ms[i]:
            # a time that looks slow is timed again and the smaller kept: on a shared host a median of three
            # can still be a burst of another process's work (12 ms for a 0.01 ms op was seen here)
            again = replayer.time_again(call, dtype, i)
            outcome.device_ms = min(outcome.device_ms, again) if again else outcome.device_ms
        if i not in cpu_ms:
            cpu_ms[i] = (outcome.device_ms if device.type == "cpu" and dtype == "fp32" else
                         replayer.time_again(call, "fp32", i, torch_cpu()))
        say(row={**row, **outcome.to_row(), "cpu_ms": cpu_ms[i]})
    say(done=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), restarted=sys.argv[3:] == ["restarted"]))
