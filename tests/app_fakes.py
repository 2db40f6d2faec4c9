"""Fakes for the workbench tests: telemetry samples, a frozen clock, a runner factory for test children."""

from __future__ import annotations

import sys

from tui.telemetry.sample import DeviceSample, HostSample, Sample
from workloads.runner import Runner
from paths import CHILDREN

FROZEN_T = 1_767_225_600.0  # 2026-01-01 00:00:00 UTC


def frozen_clock() -> float:
    return FROZEN_T


def fake_sample(i: int = 0, t0: float = FROZEN_T, devices: int = 1, temperature_c: float | None = None) -> Sample:
    """A deterministic tick: one GPU warming up under load (levelling off), and a busy host."""
    gib = 2**30
    devs = tuple(
        DeviceSample(index=d, name="NVIDIA H100 80GB HBM3", bus_id=f"0000:{0x3b + d:02x}:00.0",
                     util_gpu_pct=float(min(99, 40 + 3 * i)), mem_used_bytes=min(20 + i, 76) * gib,
                     mem_total_bytes=80 * gib,
                     temperature_c=float(min(45 + i, 71)) if temperature_c is None else temperature_c,
                     power_w=float(min(150 + 10 * i, 640)),
                     power_limit_w=700.0, sm_clock_mhz=1980.0, throttle_reasons=())
        for d in range(devices))
    host = HostSample(hostname="trial-box", cpu_count=16, cpu_pct=float(30 + i % 20), mem_used_bytes=24 * gib,
                      mem_total_bytes=128 * gib, disk_free_bytes=40 * gib, disk_used_bytes=24 * gib,
                      disk_total_bytes=64 * gib, load1=1.5, load5=1.25, load15=1.0)
    return Sample(t=t0 + i, devices=devs, host=host, sources=("fake",))


class FakeTelemetry:
    """A telemetry source the test drives: ``tick()`` feeds the sink, then the callback, like the sampler."""

    def __init__(self, callback):
        self.callback = callback
        self.sink = None
        self.started = self.stopped = False
        self.i = 0

    def start(self):
        self.started = True
        return self

    def stop(self, timeout: float = 0.0):
        self.stopped = True

    def set_sink(self, sink):
        self.sink = sink

    def tick(self):
        sample = fake_sample(self.i)
        if self.sink is not None:
            self.sink(sample.to_dict())
        self.callback(sample)
        self.i += 1


def child_factory(script: str, *args: str):
    """A runner factory that starts tests/children/<script> instead of the real workload."""
    made: list[Runner] = []

    def factory(name, workload_args, run):
        runner = Runner([sys.executable, "-u", str(CHILDREN / script), *args], run=run, cwd=str(CHILDREN))
        made.append(runner)
        return runner

    factory.made = made
    return factory


async def choose_workload(app, pilot, name: str) -> None:
    """Choose a workload as a user does: its number key, or (past the tenth, which has none) the launcher's bar."""
    from tui.workbench.panes.keys import workload_key

    key = workload_key(app.workload_names.index(name))
    if key is not None:
        await pilot.press(key)
    else:
        app.action_select_workload(app.workload_names.index(name))
        await pilot.pause()


async def trial_read(pilot, banner) -> None:
    """Wait for the trial banner's first read of its settings, one refresh after the first frame (a single pause
    does not reach it on a loaded host)."""
    for _ in range(500):
        if banner.config is not None:
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError("the trial banner never read its settings")
