"""A day of soak data on a simulated clock: file sizes, the report's chart build time, the plots' and the soak's memory.

    python bench/soak_day.py [--hours 24] [--devices 8] [--interval 600]

Samples are injected, not polled: one sample a simulated second of ``--devices`` fake H100s (each
device dict as the NVML source writes it, with util, memory, temperature, power and clocks moving),
and one forwarded soak step a second (the soak forwards at most that many). At hour 13 of 24 (the
same share of a shorter run) GPU5 reports an uncorrectable ECC error and thermal throttling for five
minutes, and the kernel an Xid 79, so the verdict's findings can be checked against their time.

1. files: the run store writes the day as a real run does (events.jsonl, run.log and telemetry.jsonl,
   the last two rotated into gzipped segments and capped by workloads.rundir.segments); sizes on disk, against
   the caps.
2. report: the run read back (tui.store.load_run, every segment) and its charts built (tui.report.charts),
   timed apart.
3. plots: the workbench's History fed the same day; the bytes its series hold (every level's arrays), the
   most after the first simulated hour against the most within it (goal: under 5 % growth), and the time to
   downsample every plotted series to a plot's width.
4. soak: its IntervalBook fed the same day, each closed interval kept as the soak keeps it (cells and
   findings); traced memory, the most after the first hour against the most within it, and the verdict.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Iterator

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO, os.path.join(REPO, "tests")]

from fake_nvml import FakeNvml, h100  # noqa: E402  (tests/fake_nvml.py)
from workloads.rundir import segments as run_segments  # noqa: E402
from tui.workbench.history import History  # noqa: E402
from tui.workbench.history_series import downsample  # noqa: E402
from tui.report.charts import charts_for  # noqa: E402
from tui.store import RunStore, load_run  # noqa: E402
from tui.telemetry.nvml import NvmlSource  # noqa: E402
from tui.telemetry.sample import HostSample, Sample  # noqa: E402
from workloads import protocol  # noqa: E402
from workloads.soak.intervals import IntervalBook  # noqa: E402
from workloads.soak import table  # noqa: E402
from workloads.soak.verdict import findings_of, verdict_of  # noqa: E402

T0 = 1_800_000_000.0   # the simulated clock's start (2027-01-15 08:00 UTC)
MIB = 2**20
PLOT_WIDTH = 120       # columns a plot of a wide terminal draws


def template(devices: int) -> dict[str, Any]:
    """One sample as the sampler writes it: the NVML source's devices and a host."""
    read, _ = NvmlSource(module=FakeNvml([h100(i) for i in range(devices)])).read()
    host = HostSample(hostname="soak-host", cpu_count=64, cpu_pct=12.5, mem_used_bytes=80 * 2**30,
                      mem_total_bytes=512 * 2**30, load1=3.2, load5=3.1, load15=3.0, disk_path="/",
                      disk_used_bytes=300 * 2**30, disk_total_bytes=2**40, disk_free_bytes=700 * 2**30,
                      disk_read_bps=1.2e6, disk_write_bps=3.4e6, net_sent_bps=1e5, net_recv_bps=2e5,
                      uptime_s=1e6)
    return Sample(t=T0, devices=tuple(read), host=host, sources=("nvml", "host")).to_dict()


def day(hours: float, devices: int) -> Iterator[tuple[float, dict[str, Any], protocol.Step]]:
    """(t, sample, forwarded step) for every simulated second; GPU5's faults at 13/24 of the run."""
    base = template(devices)
    seconds = int(hours * 3600)
    fault_at = int(seconds * 13 / 24)
    bad = min(5, devices - 1)
    for s in range(seconds):
        t = T0 + s
        wave = math.sin(s / 300.0)
        sample = dict(base, t=t, devices=[dict(d) for d in base["devices"]], host=dict(base["host"], cpu_pct=10 + 5 * wave))
        for i, d in enumerate(sample["devices"]):
            d.update(util_gpu_pct=90.0 + 5 * wave + i % 3, temperature_c=60.0 + 8 * wave + i,
                     power_w=round(520 + 60 * wave + 3 * i, 2), sm_clock_mhz=1980.0 - (15 if s % 7 == 0 else 0),
                     mem_used_bytes=30 * 2**30 + (s % 600) * 2**20)
            if i == bad and s >= fault_at:
                d["ecc_uncorrected"] = 1
            if i == bad and fault_at <= s < fault_at + 300:
                d["throttle_reasons"] = ["power cap", "hw thermal"]
                d["sm_clock_mhz"] = 1410.0
        step = protocol.Step(t=t + 0.5, step=s * 40, loss=2.0 / (1 + s / 3600), throughput=2400.0 + 20 * wave,
                             unit="images/s", step_s=0.1, extra={"inner": "resnet50", "inner_steps": 40})
        yield t, sample, step


def _size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.is_file())


def files(hours: float, devices: int, root: Path) -> Path:
    store = RunStore(root)
    run = store.create("soak", ["--hours", f"{hours:g}", "--workload", "resnet50"])
    run.append(protocol.Start(t=T0, workload="soak", config={"hours": hours}, device="cuda:0"))
    started = time.perf_counter()
    for t, sample, step in day(hours, devices):
        run.append_telemetry(sample)
        run.append(step)
        # the inner workload's own line for the step (its stderr goes to the soak's run.log)
        run.log(f"step {step.step}/0 | epoch 3/90 | loss {step.loss:.4f} | {step.throughput:.1f} images/s this step"
                f" | step 100.0 ms | data-wait 0.4 ms | mem 61440 MiB", t=t)
    run.append(protocol.End(t=T0 + hours * 3600, status="ok", exit_code=0))
    run.close()
    wrote = time.perf_counter() - started
    path = run.path
    telemetry = run_segments.segment_paths(path / "telemetry.jsonl") + [path / "telemetry.jsonl"]
    logs = run_segments.segment_paths(path / "run.log") + [path / "run.log"]
    print(f"files: {hours:g} h x {devices} devices at 1 Hz written in {wrote:.0f} s (simulated clock)")
    print(f"  telemetry.jsonl + segments: {_size(telemetry) / MIB:.1f} MiB on disk in {len(telemetry)} file(s) "
          f"(segment {run_segments.TELEMETRY_SEGMENT_BYTES / MIB:.0f} MiB, gzipped; cap "
          f"{run_segments.TELEMETRY_KEEP_BYTES / MIB:.0f} MiB of segments)")
    print(f"  run.log + segments: {_size(logs) / MIB:.1f} MiB in {len(logs)} file(s) "
          f"(segment {run_segments.LOG_SEGMENT_BYTES / MIB:.0f} MiB, cap {run_segments.LOG_KEEP_BYTES / MIB:.0f} MiB)")
    print(f"  events.jsonl: {_size([path / 'events.jsonl']) / MIB:.1f} MiB (not rotated: one forwarded step a second)")
    print(f"  the run directory: {_size(list(path.iterdir())) / MIB:.1f} MiB")
    return path


def report(path: Path) -> None:
    import psutil

    rss = psutil.Process().memory_info().rss
    started = time.perf_counter()
    record = load_run(path)
    loaded = time.perf_counter() - started
    grown = psutil.Process().memory_info().rss - rss
    started = time.perf_counter()
    charts = charts_for(record)
    built = time.perf_counter() - started
    print(f"report: run read back in {loaded:.1f} s ({len(record.telemetry)} samples, {len(record.steps)} steps; "
          f"RSS +{grown / MIB:.0f} MiB while it is held)")
    print(f"  charts built in {built:.2f} s: " + ", ".join(f"{c.name.rsplit('-', 1)[-1]} {len(c.svg) / 1024:.0f} KiB"
                                                         for c in charts))


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def history_bytes(history: History) -> int:
    """What the plots' data holds: every column of every stored level of every series (array buffers)."""
    series = list(history.telemetry.values()) + [s for run in history.runs.values() for s in (run.loss, run.throughput)]
    return sum(sys.getsizeof(column) for s in series for level in (s.base, *s.levels)
               for column in (level.xs, level.ys, level.lo, level.hi))


def plots(hours: float, devices: int, capacity: int | None) -> None:
    """A series stores up to its capacity, then merges pairwise (half full) and fills again: its bytes go up and
    down. The growth is the highest after the first hour against the highest within it (read every minute)."""
    history = History() if capacity is None else History(capacity)
    first_hour = later = 0
    for t, sample, step in day(hours, devices):
        history.add_sample_line(sample)
        history.add_step("soak", step)
        if int(t - T0) % 60 == 59:
            held = history_bytes(history)
            if t - T0 < 3600:
                first_hour = max(first_hour, held)
            else:
                later = max(later, held)
    end = history_bytes(history)
    series = list(history.telemetry.values()) + [s for run in history.runs.values() for s in (run.loss, run.throughput)]
    started = time.perf_counter()
    for s in series:
        downsample(s, PLOT_WIDTH)
    drawn = time.perf_counter() - started
    growth = 100.0 * (later - first_hour) / first_hour if first_hour and later else float("nan")
    cap = f"capacity {history.capacity} points a series" + (" (its default)" if capacity is None else "")
    print(f"plots: History ({cap}) of {len(series)} series: at most {first_hour / MIB:.2f} MiB in the first hour, "
          f"{later / MIB:.2f} MiB after it ({end / MIB:.2f} MiB at the end): growth {growth:.1f} % (goal < 5 %); "
          f"every series drawn at {PLOT_WIDTH} columns in {drawn * 1000:.1f} ms")


def soak(hours: float, devices: int, interval: float) -> None:
    """What the soak holds: its book (the open intervals' raw values) and, per closed interval, its cells and
    findings, as workloads.soak.cli keeps them."""
    end_t = T0 + hours * 3600
    book = IntervalBook(T0, interval, end_t)
    cells: list[dict[str, str]] = []
    found: list[Any] = []
    seen = {"devices": False, "rates": False}

    def keep(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            cells.append(table.flat(row))
            found.extend(findings_of(row))
            seen["devices"] = seen["devices"] or bool(row["devices"])
            seen["rates"] = seen["rates"] or bool(row["rates"])

    tracemalloc.start()
    base = _traced()
    first_hour = later = 0
    fault_at = T0 + int(hours * 3600 * 13 / 24)
    book.add_xid(fault_at + 60, 79, "PCI:0000:1D:00", "NVRM: Xid (PCI:0000:1D:00): 79, GPU has fallen off the bus.")
    for t, sample, step in day(hours, devices):
        book.add_sample(sample)
        book.add_step(step.t, "resnet50", step.throughput, step.unit)
        keep(book.close_due(t))
        if int(t - T0) % 600 == 599:
            held = _traced() - base
            if t - T0 < 3600:
                first_hour = max(first_hour, held)
            else:
                later = max(later, held)
    keep(book.close_all(end_t))
    end = _traced() - base
    tracemalloc.stop()
    verdict, findings = verdict_of(found, devices_seen=seen["devices"], rates_seen=seen["rates"])
    growth = 100.0 * (later - first_hour) / first_hour if first_hour and later else float("nan")
    print(f"soak: {len(cells)} intervals; it holds at most {first_hour / 1024:.0f} KiB in the first hour, "
          f"{later / 1024:.0f} KiB after it, {end / 1024:.0f} KiB at the end: growth {growth:.0f} % (the open "
          f"intervals' raw values, and each closed one's cells and findings)")
    print(f"  verdict {verdict}: " + "; ".join(f"{f.level} {f.text[:90]}" for f in findings[:4]))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--devices", type=int, default=8)
    p.add_argument("--interval", type=float, default=600.0)
    p.add_argument("--capacity", type=int, action="append", default=None,
                   help="also measure the plots with History(capacity=N) (repeatable)")
    p.add_argument("--keep", action="store_true", help="keep the run directory (its path is printed)")
    p.add_argument("--skip-files", action="store_true", help="only the plots and the soak (no run on disk)")
    args = p.parse_args()
    if not args.skip_files:
        with tempfile.TemporaryDirectory(prefix="soak-day-") as tmp:
            path = files(args.hours, args.devices, Path(tmp))
            report(path)
            if args.keep:
                kept = Path(tempfile.mkdtemp(prefix="soak-day-run-"))
                os.replace(path, kept / path.name)
                print(f"  kept: {kept / path.name}")
    for capacity in [None, *(args.capacity or [])]:
        plots(args.hours, args.devices, capacity)
    soak(args.hours, args.devices, args.interval)
    return 0


if __name__ == "__main__":
    sys.exit(main())
