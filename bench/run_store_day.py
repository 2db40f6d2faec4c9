"""A day of telemetry and log through the run store's caps: what is on disk, and how fast it reads back.

    python bench/run_store_day.py [--hours 24] [--devices 8] [--steps-per-s 1] [--keep DIR]

Writes, on a simulated clock, ``--hours`` of 1 Hz samples of ``--devices`` devices (every field NVML
gives filled, one process each) through `tui.store.Run.append_telemetry`, and a run.log line per step at
``--steps-per-s`` through `Run.log`, with the store's real caps (workloads.rundir.segments: segments of 64 MiB /
32 MiB, gzipped). Then prints, for telemetry.jsonl and run.log: what was written, what is on disk
(segments and live file), and the time `tui.store.load_run` and `RunFollower.record` (the workbench's
attach) take to read the whole run back, and `RunRecord.log_text`. Exit status 1 when the telemetry on disk is
over 100 MiB or a read back over 60 s (the bounds this bench holds the caps to).

Then ``cardbench export --run`` of that run, as a user types it (a child process, stdin closed, report charts
and screenshot included): its wall time and its peak RSS, against issue 23's bounds (10 s, 600 MiB; exit status
1 when over). The peak is the cardbench process's with its telemetry decoder's (`tui.store.telemetry_read`) while
both run, sampled; `python -m torch.utils.collect_env` and the doctor's probes, which the export
starts beside it (importing torch: the same few hundred MiB whatever the run), are printed apart. ``--no-export``
leaves it out; ``--export-only DIR`` times the export of a day kept before with ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui.store.follow import RunFollower  # noqa: E402
from tui.store import RunStore, load_run  # noqa: E402
from tui.telemetry.sample import DeviceProcess, DeviceSample, HostSample, Sample  # noqa: E402
from workloads import protocol  # noqa: E402

DISK_BOUND = 100 * 2**20
READ_BOUND_S = 60.0
EXPORT_BOUND_S, EXPORT_BOUND_RSS = 10.0, 600 * 2**20
# the export in a child that reports its own peak (ru_maxrss of RUSAGE_SELF leaves collect_env's out)
_EXPORT = """
import json, resource, sys
sys.path.insert(0, sys.argv[1])
from tui import cli
code = cli.main(["export", "--run", sys.argv[2], "-o", sys.argv[3]])
me = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"code": code, "self_kib": me.ru_maxrss, "self_cpu_s": me.ru_utime + me.ru_stime,
                  "children_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""
GIB = 2**30


def _sample(t: float, i: int, devices: int) -> dict:
    wave = math.sin(i / 600.0)
    devs = tuple(DeviceSample(
        index=d, name="NVIDIA H100 80GB HBM3", bus_id=f"0000:{0x18 + d:02X}:00.0", pci_vendor="NVIDIA",
        pci_vendor_id="0x10de", uuid=f"GPU-5f1c2e8a-{d:04d}-4c1e-9a0b-3e7d1f2a6b{d:02d}", driver_version="550.54.15",
        runtime_version="12.4", compute_capability="9.0", util_gpu_pct=float(90 + (i + d) % 10),
        util_mem_pct=float(40 + (i * 7 + d) % 20), mem_used_bytes=int((60 + d) * GIB + (i % 97) * 2**20),
        mem_total_bytes=80 * GIB, mem_reserved_bytes=512 * 2**20, temperature_c=float(round(68 + 4 * wave)),
        power_w=round(620 + 40 * wave + d, 2), power_limit_w=700.0, sm_clock_mhz=float(1980 - (i % 3) * 15),
        sm_clock_max_mhz=1980.0, mem_clock_mhz=2619.0, mem_clock_max_mhz=2619.0, fan_pct=None, pstate="P0",
        throttle_reasons=("sw_power_cap",) if i % 50 == 0 else (), pcie_gen=5, pcie_gen_max=5, pcie_width=16,
        pcie_width_max=16, pcie_tx_kbps=float(1200 + i % 400), pcie_rx_kbps=float(5400 + i % 900), ecc_corrected=0,
        ecc_uncorrected=0, retired_pages=0, remapped_rows=0, pcie_replays=0, power_violation_s=round(i * 0.01, 2),
        thermal_violation_s=0.0, processes=(DeviceProcess(4242, "python", int(58 * GIB)),))
        for d in range(devices))
    host = HostSample(hostname="trial-box", cpu_count=128, cpu_pct=float(30 + i % 20), mem_used_bytes=400 * GIB,
                      mem_total_bytes=2048 * GIB, disk_free_bytes=900 * GIB, disk_used_bytes=100 * GIB,
                      disk_total_bytes=1000 * GIB, load1=40.0, load5=38.0, load15=35.0)
    return Sample(t=t, devices=devs, host=host, sources=("nvml", "psutil")).to_dict()


def _size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


def _timed(what: str, call):
    start, cpu = time.perf_counter(), time.process_time()
    out = call()
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    # on a host other jobs load, wall over CPU is the wait for a core
    print(f"  {what}: {took:.1f} s ({cpu:.1f} s of CPU)")
    return out, took


def _tree_rss(proc: Any) -> tuple[int, int]:
    """(the export's own RSS plus its telemetry decoder's, the largest of its other children's: collect_env and
    the doctor's probes, whose torch imports are the same few hundred MiB whatever the run), in bytes."""
    import psutil

    own, env = 0, 0
    try:
        own = proc.memory_info().rss
        for child in proc.children(recursive=True):
            try:
                rss = child.memory_info().rss
                if any("tui.store.telemetry_read" in part for part in child.cmdline()):
                    own += rss
                else:
                    env = max(env, rss)
            except psutil.Error:
                continue
    except psutil.Error:
        pass
    return own, env


def export(run_dir: Path) -> bool:
    """Time `cardbench export --run` of the run; True when within the bounds."""
    import psutil

    out = Path(tempfile.mkdtemp(prefix="cardbench-day-export-"))
    try:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", _EXPORT, str(Path(__file__).resolve().parent.parent),
                                  str(run_dir), str(out)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        # the tree's resident memory every 50 ms (the export and its decoder at once: ru_maxrss is per process)
        proc, tree_peak, env_peak = psutil.Process(child.pid), 0, 0
        while child.poll() is None:
            own, env = _tree_rss(proc)
            tree_peak, env_peak = max(tree_peak, own), max(env_peak, env)
            time.sleep(0.05)
        stdout, stderr = child.communicate()
        took = time.perf_counter() - started
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        last = (stdout.strip().splitlines() or ["{}"])[-1]
        try:
            figures = json.loads(last)
        except ValueError:
            figures = {}
        if child.returncode != 0 or figures.get("code") != 0:
            print(f"  cardbench export --run: FAILED (exit {child.returncode or figures.get('code')}): {stderr.strip()[-400:]}")
            return False
        peak = max(figures["self_kib"] * 1024, tree_peak)
        zips = sorted(out.glob("*.zip"))
        print(f"  cardbench export --run (the report bundle, charts and screenshot included): {took:.1f} s "
              f"(bound {EXPORT_BOUND_S:.0f} s; {cpu.ru_utime + cpu.ru_stime:.1f} s of CPU in all, "
              f"{figures['self_cpu_s']:.1f} s of it cardbench's own process), peak RSS "
              f"{peak / 2**20:.0f} MiB (bound {EXPORT_BOUND_RSS // 2**20} MiB; the process "
              f"{figures['self_kib'] / 1024:.0f} MiB, with its telemetry decoder at once {tree_peak / 2**20:.0f} MiB, "
              f"sampled every 50 ms); collect_env and the doctor's probes beside it at most {env_peak / 2**20:.0f} MiB; "
              f"the zip {zips[0].stat().st_size / 2**20:.1f} MiB")
        return took <= EXPORT_BOUND_S and peak <= EXPORT_BOUND_RSS
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--steps-per-s", type=float, default=1.0)
    parser.add_argument("--keep", metavar="DIR", help="write the run here and keep it")
    parser.add_argument("--no-export", action="store_true", help="leave out the timing of cardbench export --run")
    parser.add_argument("--export-only", metavar="RUN_DIR", help="only time the export of a run kept before")
    args = parser.parse_args()
    if args.export_only:
        print(f"{os.getloadavg()[0]:.1f} load average over the last minute")
        return 0 if export(Path(args.export_only)) else 1
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cardbench-day-"))
    samples = int(args.hours * 3600)
    t0 = 1_796_000_000.0
    try:
        run = RunStore(root).create("resnet50", ["--epochs", "90"])
        run.append(protocol.Start(workload="resnet50", config={}, device="cuda:0", t=t0))
        written = {"telemetry": 0, "log": 0}
        start = time.perf_counter()
        step = 0
        steps_due = 0.0
        for i in range(samples):
            t = t0 + i
            sample = _sample(t, i, args.devices)
            run.append_telemetry(sample)
            written["telemetry"] += len(__import__("json").dumps(sample, separators=(",", ":"))) + 1
            steps_due += args.steps_per_s
            while steps_due >= 1:
                steps_due -= 1
                step += 1
                line = (f"step {step}/9000000 | epoch 1/90 | loss 1.2068 | 2915.3 images/s this step | "
                        f"step 87.8 ms | data-wait 0.4 ms | mem 61234 MiB")
                run.log(line, t=t)
                written["log"] += len(line) + 26
        run.append(protocol.End(status="ok", exit_code=0, t=t0 + samples))
        run.close()
        wrote_s = time.perf_counter() - start
        path = run.path
        telemetry_files = sorted(path.glob("telemetry*.jsonl*"))
        log_files = sorted(path.glob("run*.log*"))
        print(f"{args.hours:g} h of {args.devices} devices at 1 Hz: {samples:,} samples, "
              f"{samples * args.devices:,} device readings; {step:,} log lines; written in {wrote_s:.0f} s")
        print(f"  telemetry: {written['telemetry'] / 2**20:.0f} MiB written -> {_size(telemetry_files) / 2**20:.1f} MiB "
              f"on disk in {len(telemetry_files)} files ({', '.join(p.name for p in telemetry_files[:2])}...)")
        print(f"  run.log:   {written['log'] / 2**20:.0f} MiB written -> {_size(log_files) / 2**20:.1f} MiB on disk "
              f"in {len(log_files)} files")
        follower = RunFollower(path)
        attached, attach_s = _timed("RunFollower.record (the workbench attaching)", follower.record)
        follower.close()
        assert attached.telemetry.t[0] == t0 and attached.telemetry.t[-1] == t0 + samples - 1
        print(f"    the workbench plots {len(attached.telemetry):,} of them: {follower.thinned} rotated segments "
              "from their thinned copies (1 in 30), the live file likewise but for its last 600 samples"
              + (f", then 1 in {follower.stride}" if follower.stride > 1 else ""))
        # after the attach: the collector's passes over load_run's 600 MiB of samples would be in its time
        record, load_s = _timed("load_run (the report reads the run this way)", lambda: load_run(path))
        assert len(record.telemetry) == samples, (len(record.telemetry), samples)
        text, log_s = _timed("log_text (the bundle's run.log)", lambda: record.log_text)
        assert text.count("\n") == step + 2, (text.count("\n"), step)
        print(f"  read back whole: {len(record.telemetry):,} samples, {text.count(chr(10)):,} log lines")
        record = text = None  # not held while the export runs
        over = _size(telemetry_files) > DISK_BOUND or max(load_s, attach_s, log_s) > READ_BOUND_S
        print(f"bounds: telemetry on disk <= {DISK_BOUND // 2**20} MiB, each read <= {READ_BOUND_S:.0f} s: "
              f"{'OVER' if over else 'met'}")
        if not args.no_export:
            over = not export(path) or over
        return 1 if over else 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
