"""What every device source offers: a name, whether it is present, and one read per tick."""

from __future__ import annotations

from typing import Protocol

from tui.telemetry.sample import DeviceSample


class DeviceSource(Protocol):
    """A way to read devices (NVML, a management CLI, a vendor JSON tool, the torch probe).

    ``available()`` is cheap and cached: a source that is absent (no library, no
    executable) is skipped without cost on every tick. ``read()`` never raises:
    it returns the devices it saw and one line per problem (a timeout, a lost GPU).
    """

    name: str

    def available(self) -> bool: ...

    def read(self) -> tuple[list[DeviceSample], list[str]]: ...

    def close(self) -> None: ...
