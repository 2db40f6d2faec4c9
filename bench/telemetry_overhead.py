"""CPU cost of the telemetry sampler at 1 Hz with eight simulated devices (fake NVML), against its 1 % bound.

    python bench/telemetry_overhead.py [--polls 300] [--seconds 5] [--devices 8]

Two measurements, both of this process's CPU time (user + system):
1. per poll: ``--polls`` polls back to back (NVML source with 8 fake H100s,
   the psutil host source, the PCI scan), CPU ms per poll; at 1 Hz that is
   the share of one core.
2. the real sampler thread at 1 Hz for ``--seconds``, appending to a
   telemetry.jsonl: CPU seconds spent over the wall-clock time, which
   includes the thread's idle waits and the first (uncached) poll.

The fake NVML answers in Python; a real libnvidia-ml call costs more in the
driver (tens to hundreds of microseconds each), so on a GPU machine run
`cardbench devices` timing too. Exit status 1 when a figure is over the bound.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO, os.path.join(REPO, "tests")]

from fake_nvml import FakeNvml, h100  # noqa: E402  (tests/fake_nvml.py)
from tui.telemetry.collect import Collector  # noqa: E402
from tui.telemetry.nvml import NvmlSource  # noqa: E402
from tui.telemetry.sampler import Sampler  # noqa: E402
from tui.store import RunStore  # noqa: E402

BOUND_PCT = 1.0  # of one core, at 1 Hz (the budget)


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def make_collector(devices: int) -> tuple[Collector, FakeNvml]:
    fake = FakeNvml([h100(i) for i in range(devices)])
    return Collector(sources=[NvmlSource(module=fake)], torch_probe=None), fake


def per_poll(polls: int, devices: int) -> tuple[float, int]:
    collector, fake = make_collector(devices)
    collector.collect()  # warm: slow fields cached, psutil primed
    start = _cpu()
    for _ in range(polls):
        sample = collector.collect()
    spent = _cpu() - start
    assert len(sample.devices) == devices
    calls_per_poll = sum(fake.calls.values()) // (polls + 1)
    return spent / polls, calls_per_poll


def sampled(seconds: float, devices: int) -> tuple[float, int]:
    collector, _ = make_collector(devices)
    with tempfile.TemporaryDirectory() as runs_dir:
        run = RunStore(runs_dir).create("telemetry-overhead", [])
        sampler = Sampler(interval=1.0, collector=collector)
        sampler.set_sink(run.append_telemetry)  # appends telemetry.jsonl too, as a real run does
        start_cpu, start = _cpu(), time.monotonic()
        sampler.start()
        time.sleep(seconds)
        sampler.stop()
        run.close()
        return (_cpu() - start_cpu) / (time.monotonic() - start), sampler.ticks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--devices", type=int, default=8)
    args = parser.parse_args()

    cpu_per_poll, calls = per_poll(args.polls, args.devices)
    pct = 100.0 * cpu_per_poll / 1.0  # one poll per second
    print(f"per poll: {cpu_per_poll * 1000:.2f} ms CPU for {args.devices} devices "
          f"({calls} NVML calls, host and PCI included), over {args.polls} polls")
    print(f"  at 1 Hz: {pct:.3f} % of one core   (bound {BOUND_PCT:g} %, i.e. {BOUND_PCT * 10:g} ms per poll)")
    ok = pct <= BOUND_PCT
    if args.seconds > 0:
        share, ticks = sampled(args.seconds, args.devices)
        print(f"sampler thread at 1 Hz for {args.seconds:g} s ({ticks} ticks): {100 * share:.3f} % of one core"
              f"   (bound {BOUND_PCT:g} %)")
        ok = ok and 100 * share <= BOUND_PCT
    print("within bound" if ok else "OVER BOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
