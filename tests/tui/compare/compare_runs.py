"""Run directories and bundles for the compare tests: chosen per-step rates and settings, no torch."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

from report_runs import T0
from tui.store import RunStore
from workloads import protocol

WARMUP = 2


def resnet_like(store: RunStore, rates, *, image_size=224, batch_size=32, amp="bf16", device="Fake GPU 80GB",
                extra=None) -> Path:
    """A finished resnet50 run: ``WARMUP`` warm-up steps, then one step per rate; its headline the median."""
    run = store.create("resnet50", ["--batch-size", str(batch_size), "--image-size", str(image_size)])
    run.append(protocol.Start(t=T0, workload="resnet50", device=device,
                              config={"batch_size": batch_size, "image_size": image_size, "amp": amp,
                                      "epoch_size": 12800, "data": None, "world_size": 1},
                              versions={"torch": "2.14.1"}))
    steps = [10.0] * WARMUP + list(rates)  # warm-up steps are slow and left out
    for i, rate in enumerate(steps, start=1):
        run.append(protocol.Step(t=T0 + i, step=i, epoch=1, loss=1.0, throughput=rate, unit="images/s",
                                 step_s=batch_size / rate))
    precision = "fp32" if amp == "off" else amp
    run.append(protocol.Result(t=T0 + len(steps) + 1, metrics={
        "images_per_s": statistics.median(rates), "precision": precision, "batch_size": batch_size,
        "image_size": image_size, "steps": len(steps), "warmup_steps": WARMUP, "world_size": 1, **(extra or {})}))
    run.append(protocol.End(t=T0 + len(steps) + 2, status="ok", exit_code=0))
    run.close()
    return run.path


def result_only(store: RunStore, workload: str, metrics: dict, *, device: str = "Fake GPU 80GB") -> Path:
    """A finished run of ``workload`` that reports its result and no steps (a soak's drift, say)."""
    run = store.create(workload, [])
    run.append(protocol.Start(t=T0, workload=workload, device=device, config={}, versions={}))
    run.append(protocol.Result(t=T0 + 1, metrics=metrics))
    run.append(protocol.End(t=T0 + 2, status="ok", exit_code=0))
    run.close()
    return run.path


def bundle(path, run, summary=None, events=None, compression=zipfile.ZIP_DEFLATED, extra=(), run_id=None):
    """A bundle as `cardbench export` lays it out (the run under ``run_id``, else its own name), with the parts a
    test wants replaced."""
    rid = run_id or run.name
    s = summary if summary is not None else {"host": "box", "runs": [{"run_id": rid}],
                                             "cost": {"price_per_hour": 6.5, "currency": "CNY"}}
    with zipfile.ZipFile(path, "w", compression) as zf:
        zf.writestr("top/metrics/summary.json", s if isinstance(s, (str, bytes)) else json.dumps(s))
        ev = (run / "events.jsonl").read_text()
        zf.writestr(f"top/logs/{rid}/events.jsonl", events(ev) if events else ev)
        zf.writestr(f"top/logs/{rid}/config.json", (run / "config.json").read_text())
        for name, data in extra:
            zf.writestr(name, data)
    return path


def one_line_exit_2(code, out, err, said):
    """Refused: nothing on stdout, one line on stderr that says ``said``, exit 2."""
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert said in err, err


# the address space a `cardbench compare` child may take: ten times what one needs (~100 MB). A regression that
# reads /dev/zero or a bomb whole then fails with MemoryError in this child instead of taking the machine's memory
CHILD_MEMORY = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def cardbench_compare(*argv, timeout=30):
    """The real entry point in a child, bounded: a hang fails the timeout, a runaway read the memory limit."""
    return subprocess.run([sys.executable, "-m", "tui.cli", "compare", *map(str, argv)], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, preexec_fn=_limit_memory)
