"""Time the report export of one long run, against its 10 s bound.

    python bench/export_large_run.py [--steps 200000] [--keep DIR] [--no-cli]

Synthesises a run directory as a long training run leaves it: a start event,
``--steps`` step events at 10 steps a second, a warning every 10,000 steps, a
result and an end, and device + host telemetry at 1 Hz over the same span
(200,000 steps: 20,000 samples), with a run.log line per event. Then:

1. ``tui.report.export.export_bundle`` in this process, timed per stage (the stages
   it announces through ``progress``), with the doctor's checks given, the
   device snapshot taken before the clock starts and the workbench's screen
   drawn off-screen, as ``cardbench export --run`` does;
2. ``cardbench export --run DIR -o OUT`` end to end, in a child process (the
   command a user types: start-up, its check of the run, device detection
   and collect_env included), its progress lines timed as they arrive.
   ``--no-cli`` leaves it out.

The part that grows with the run (reading the events, the screenshot, the
charts, metrics and logs, the report, the zip) is what the bound is about:
before issue 16 it grew with the square of the steps (5,000 steps: 2.5 s in
"metrics and logs"; 150,000: not done after ten minutes). collect_env (seconds,
whatever the run) runs in the background from "collecting the environment" on;
"waiting for collect_env" is what was left of it when env.json was due. Each
stage in process is also given in CPU seconds of this process: on a machine
other jobs load, wall time over CPU time is the wait for a core. Exit status 1
when a total is over the bound.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO]

from tui.report.export import ExportInputs, export_bundle  # noqa: E402
from tui.store import RunStore  # noqa: E402
from workloads import protocol  # noqa: E402

BOUND_S = 10.0
STEPS_PER_S = 10  # so 200,000 steps span 20,000 s of 1 Hz telemetry
T0 = 1_790_000_000.0
DOCTOR = [{"name": "python", "status": "ok", "detail": "bench"}]


def _device(i: int) -> dict:
    return {"index": 0, "name": "Bench GPU 80GB", "bus_id": "0000:3b:00.0", "pci_vendor": "NVIDIA",
            "util_gpu_pct": 90.0 + i % 7, "util_mem_pct": 40.0, "mem_used_bytes": 60 * 2**30,
            "mem_total_bytes": 80 * 2**30, "temperature_c": 60.0 + i % 11, "power_w": 500.0 + i % 50,
            "power_limit_w": 700.0, "sm_clock_mhz": 1980.0, "mem_clock_mhz": 2619.0, "pstate": "P0",
            "throttle_reasons": [], "ecc_corrected": 0, "ecc_uncorrected": 0}


def synthesise(root: Path, steps: int) -> Path:
    """A finished resnet50-like run with ``steps`` steps and 1 Hz telemetry over the same span."""
    run = RunStore(root).create("resnet50", ["--steps", str(steps), "--batch-size", "256"])
    run.append(protocol.Start(t=T0, workload="resnet50", device="Bench GPU 80GB",
                              config={"batch_size": 256, "image_size": 224, "amp": "bf16", "epoch_size": 1281167},
                              versions={"torch": "2.14.1"}))
    span_s = steps / STEPS_PER_S
    # written line by line through the Run (as the runner does) would take minutes: build the text in bulk
    events, log, telemetry = [], [], []
    for i in range(1, steps + 1):
        t = T0 + i / STEPS_PER_S
        step = protocol.Step(t=t, step=i, epoch=1 + i // 5000, loss=6.9 * math.exp(-i / 20000) + 0.5,
                             throughput=2400.0 + (i % 100), unit="images/s", step_s=0.1, data_wait_s=0.002,
                             compute_s=0.098, memory_allocated_bytes=60 * 2**30, memory_reserved_bytes=62 * 2**30)
        events.append(step.to_json())
        log.append(f"[bench] {step.describe()}")
        if i % 10_000 == 0:
            warning = protocol.WorkloadWarning(t=t, message=f"data loader slow at step {i}", code="slow_data")
            events.append(warning.to_json())
            log.append(f"[bench] {warning.describe()}")
    for s in range(int(span_s) + 1):
        telemetry.append(json.dumps({"t": T0 + s, "devices": [_device(s)],
                                     "host": {"hostname": "benchhost", "cpu_count": 32, "cpu_pct": 30.0 + s % 20,
                                              "mem_used_bytes": 40 * 2**30, "mem_total_bytes": 256 * 2**30},
                                     "errors": [], "sources": ["nvml"]}, separators=(",", ":")))
    with open(run.path / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write("\n".join(events) + "\n")
    with open(run.path / "run.log", "a", encoding="utf-8") as fh:
        fh.write("\n".join(log) + "\n")
    with open(run.path / "telemetry.jsonl", "w", encoding="utf-8") as fh:
        fh.write("\n".join(telemetry) + "\n")
    run.append(protocol.Result(t=T0 + span_s + 1, metrics={"images_per_s": 2450.0, "final_loss": 0.6,
                                                           "precision": "bf16", "batch_size": 256, "steps": steps}))
    run.append(protocol.End(t=T0 + span_s + 2, status="ok", exit_code=0))
    run.close()
    # the doctor's checks beside the run, as a headless run leaves them, so `export --run` does not run it
    (run.path / "doctor.json").write_text(json.dumps(DOCTOR), encoding="utf-8")
    return run.path


def in_process(run_dir: Path, out: Path) -> tuple[list[tuple[str, float, float]], float, float]:
    """export_bundle with a progress callback: (stage, wall seconds, CPU seconds of this process) in order,
    and the totals. The CPU figure tells the work from the wait on a machine that others load too."""
    from tui.workbench.screenshot import app_screenshot
    from tui.telemetry import collect_once

    sample = collect_once()  # taken before the clock starts: the CLI's is in its own figure below
    marks: list[tuple[str, float, float]] = []
    start, cpu_start = time.perf_counter(), time.process_time()
    # the workbench's screen drawn off-screen, as `cardbench export` does
    export_bundle(ExportInputs([run_dir], out, doctor_checks=DOCTOR, sample=sample, screenshot=app_screenshot,
                               progress=lambda stage: marks.append((stage, time.perf_counter(), time.process_time()))))
    end, cpu_end = time.perf_counter(), time.process_time()
    ends = [(t, cpu) for _, t, cpu in marks[1:]] + [(end, cpu_end)]
    stages = [(name, t_end - t, cpu_then - cpu) for (name, t, cpu), (t_end, cpu_then) in zip(marks, ends)]
    return stages, end - start, cpu_end - cpu_start


def cli(run_dir: Path, out: Path) -> tuple[list[tuple[str, float]], float, float, int, str]:
    """The command as typed, its progress lines timed as they arrive: (stage, seconds), total, CPU seconds
    of the command and the children it waited for (collect_env's included), exit, last line."""
    cpu_start = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tui.cli", "export", "--run", str(run_dir), "-o", str(out)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    marks = [("start-up, imports and checking the run", start)]
    lines = []
    for line in proc.stderr:
        lines.append(line.rstrip("\n"))
        # "cardbench:   reading the runs" (a stage of the bundle), "cardbench: [1/1] ..." (the phase)
        if line.startswith("cardbench:   "):
            marks.append((line[len("cardbench:   "):].strip(), time.perf_counter()))
    rc = proc.wait()
    end = time.perf_counter()
    stages = [(name, (marks[i + 1][1] if i + 1 < len(marks) else end) - t) for i, (name, t) in enumerate(marks)]
    return stages, end - start, _children_cpu() - cpu_start, rc, (lines or [""])[-1]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _verdict(seconds: float) -> str:
    return f"bound {BOUND_S:.0f} s: {'ok' if seconds <= BOUND_S else 'OVER'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--keep", metavar="DIR", help="write the run and the bundles here and keep them")
    parser.add_argument("--no-cli", action="store_true", help="leave out the `cardbench export` child process")
    args = parser.parse_args(argv)

    tmp = None if args.keep else tempfile.TemporaryDirectory(prefix="cardbench-bench-")
    base = Path(args.keep or tmp.name)
    try:
        t = time.perf_counter()
        run_dir = synthesise(base / "runs", args.steps)
        size = sum(p.stat().st_size for p in run_dir.iterdir())
        print(f"synthesised {args.steps:,} steps and {args.steps // STEPS_PER_S + 1:,} telemetry samples "
              f"({size / 2**20:.0f} MiB) in {time.perf_counter() - t:.1f} s: {run_dir}")

        stages, total, cpu = in_process(run_dir, base / "out-inprocess")
        print("\nexport_bundle, in process (wall, and CPU of this process; collect_env's child is apart):")
        for name, seconds, spent in stages:
            print(f"  {seconds:7.2f} s  {spent:6.2f} s CPU  {name}")
        print(f"  {total:7.2f} s  {cpu:6.2f} s CPU  total ({_verdict(total)})")
        over = total > BOUND_S

        if not args.no_cli:
            stages, seconds, cpu, rc, last = cli(run_dir, base / "out-cli")
            print("\ncardbench export --run DIR -o OUT, a child process:")
            for name, spent in stages:
                print(f"  {spent:7.2f} s  {name}")
            print(f"  {seconds:7.2f} s  total, exit {rc}" + (f" ({last})" if rc else "")
                  + f"; {cpu:.2f} s CPU with its children on {os.cpu_count()} cores ("
                  + (_verdict(seconds) if rc == 0 else "OVER: it failed") + ")")
            over = over or seconds > BOUND_S or rc != 0
        print(f"\ncpus: {os.cpu_count()}, load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        return 1 if over else 0
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
