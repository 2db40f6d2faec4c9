"""Device and host telemetry, UI-free: sources -> merged `Sample` snapshots.

    from tui.telemetry import collect_once, Sampler
    sample = collect_once()                 # every source, merged, once
    sampler = Sampler(interval=1.0, callback=on_sample)   # background thread
    sampler.set_sink(run.append_telemetry); sampler.start(); ...; sampler.stop()

Importing this package loads neither torch nor textual (nor pynvml, psutil:
they are imported when a source is first built).
"""

from __future__ import annotations

from tui.telemetry.sample import DeviceProcess, DeviceSample, HostSample, Sample

__all__ = ["DeviceProcess", "DeviceSample", "HostSample", "Sample", "Sampler", "collect_once"]


def collect_once(torch: bool = False, torch_timeout: float = 30.0) -> Sample:
    """One snapshot from every source, merged. ``torch=True`` waits for the torch probe child too."""
    from tui.telemetry.collect import Collector
    from tui.telemetry.processes import attribute

    collector = Collector(torch_probe=torch)
    try:
        # whose each card's processes are: no workload of cardbench's runs in this one-off read
        return attribute(collector.collect(wait_for_torch=torch_timeout if torch else 0.0))
    finally:
        collector.close()


def __getattr__(name: str):
    if name == "Sampler":  # lazy, so `import tui.telemetry` does not start importing threads' deps
        from tui.telemetry.sampler import Sampler

        return Sampler
    raise AttributeError(name)
