"""The workbench's telemetry source: the 1 Hz sampler, its collector built lazily, its torch probe in reach. UI-free.

    sampler = default_telemetry_source(callback)   # callback(sample) from the sampler's thread
    sampler.torch_probe                            # does torch see the listed cards? (None until the first tick)

Start-up does not wait for the collector (the management CLI, NVML, the torch probe child): the sampler's
thread builds it at its first tick.
"""

from __future__ import annotations

from typing import Any, Callable

from tui.telemetry.sampler import Sampler

# What the workbench takes as its telemetry: ``source(callback)`` returns an object with ``start()``/``stop()``/
# ``set_sink(sink)`` that calls ``sink(sample.to_dict())`` and then ``callback(sample)`` from its own thread; the
# session sets the sink, which records into the open run.
TelemetrySource = Callable[[Callable[[Any], None]], Any]


class _LazyCollector:
    """The sampler's collector, built on the sampler's thread at its first tick (start-up does not wait for it)."""

    def __init__(self) -> None:
        self.real: Any = None

    @property
    def torch(self) -> Any:
        return getattr(self.real, "torch", None)

    def collect(self) -> Any:
        if self.real is None:
            from tui.telemetry.collect import Collector

            self.real = Collector()
        return self.real.collect()

    def close(self) -> None:
        if self.real is not None:
            self.real.close()


class WorkbenchSampler(Sampler):
    """The real sampler (1 Hz, its own thread), its torch probe in reach: does torch see the listed cards?"""

    def __init__(self, callback: Callable[[Any], None]) -> None:
        self.lazy = _LazyCollector()
        super().__init__(interval=1.0, callback=callback, collector=self.lazy)

    @property
    def torch_probe(self) -> Any:
        """The probe child's answer holder (`TorchProbe`), once the first tick has built it; else None."""
        return self.lazy.torch


def default_telemetry_source(callback: Callable[[Any], None]) -> Sampler:
    """The real sampler: 1 Hz, on its own thread."""
    return WorkbenchSampler(callback)
