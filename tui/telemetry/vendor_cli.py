"""The first vendor CLI on PATH that `tui.telemetry.readers` knows, read every tick (Ascend, Cambricon, ...).

The CLI runs bounded in time (`run_bounded`) with its working directory in a private temporary folder, never the
user's: Cambricon's ``cnmon info -j`` writes its JSON there. What it prints past `MAX_OUTPUT` is not read: the tool
is killed there (no card table is that long: a tool gone wrong would cost the workbench memory and time every tick),
and a reader that
fails on what it got says so in one line; the devices it did read still count.
"""

from __future__ import annotations

import importlib
import shutil
import tempfile
import time
from types import ModuleType
from typing import Callable

from tui.telemetry import pci, vendors
from tui.telemetry.cli_tool import CliResult, Runner, run_bounded
from tui.telemetry.readers import Reading
from tui.telemetry.sample import DeviceSample

TIMEOUT_S = 3.0
SKIP_FAILED_S = 300.0   # how long a form this build failed to answer is not asked again
MAX_OUTPUT = 4_000_000   # bytes of one answer, read no further; a 16-card table with processes is ~20 kB


def reader_module(name: str) -> ModuleType:
    return importlib.import_module(f"tui.telemetry.readers.{name}")


class VendorCliSource:
    """Reads cards through the vendor table's first CLI with a reader (looked up once, on the first call)."""

    def __init__(self, clis: tuple[vendors.ManagementCli, ...] | None = None, timeout: float = TIMEOUT_S,
                 runner: Runner = run_bounded, pci_root: str = pci.SYSFS_PCI) -> None:
        self.pci_root = pci_root
        self.clis = clis if clis is not None else vendors.by_query(vendors.VENDOR_TABLE)
        self.timeout = timeout
        self._run = runner
        self._found: tuple[vendors.ManagementCli, str] | None = None
        self._looked = False
        self._cwd: tempfile.TemporaryDirectory[str] | None = None
        self._skip: dict[tuple[str, ...], tuple[float, CliResult]] = {}   # arguments -> (when, the failure)
        self._most = 0   # the most cards one answer listed: fewer later is said

    @property
    def name(self) -> str:
        return self._found[0].exe if self._found else "vendor-cli"

    def available(self) -> bool:
        if not self._looked:
            self._looked = True
            bus: set[str] | None = None
            for cli in self.clis:
                path = shutil.which(cli.exe)
                if path and cli.pci_ids:
                    bus = bus if bus is not None else {p.vendor_id for p in pci.scan(self.pci_root)}
                    if not vendors.fits_bus(cli, bus):
                        continue   # another maker's tool of that name (Intel's xpu-smi beside Intel cards)
                if path:
                    self._found = (cli, path)
                    break
        return self._found is not None

    def describe(self) -> str:
        if self.available():
            assert self._found is not None
            return f"{self.name} at {self._found[1]}"
        return f"no vendor CLI on PATH ({', '.join(c.exe for c in self.clis)})"

    def call(self, args: list[str]) -> CliResult:
        """``<exe> args``, bounded in time and size, run from the private folder."""
        assert self._found is not None
        if self._cwd is None:
            self._cwd = tempfile.TemporaryDirectory(prefix="cardbench-cli-")
        return self._run([self._found[1], *args], self.timeout, cwd=self._cwd.name, max_output=MAX_OUTPUT)

    def _call_once(self, failed: dict[tuple[str, ...], CliResult], now: float) -> Callable[[list[str]], CliResult]:
        """`call`, except that a form that failed in a read that still found the cards (an older build without the
        JSON flag) answers with that failure for `SKIP_FAILED_S` instead of costing a process, or a timeout, a tick."""
        def call(args: list[str]) -> CliResult:
            key = tuple(args)
            skipped = self._skip.get(key)
            if skipped is not None and now - skipped[0] < SKIP_FAILED_S:
                return skipped[1]
            done = self.call(args)
            if done.problem:
                failed[key] = done
            asked.append(done)
            return done

        def unsupported(args: list[str]) -> None:   # the reader's word: it answered, not in that form
            failed[tuple(args)] = CliResult(None, "", "", f"{self.name} {' '.join(args)}: not this build's form")

        asked: list[CliResult] = []
        call.unsupported = unsupported   # type: ignore[attr-defined]
        call.asked = asked               # type: ignore[attr-defined]
        return call

    def read(self) -> Reading:
        if not self.available():
            return [], []
        assert self._found is not None
        cli = self._found[0]
        failed: dict[tuple[str, ...], CliResult] = {}
        now = time.monotonic()
        call = self._call_once(failed, now)
        try:
            devices, problems = reader_module(cli.reader or "").read(call)
        except Exception as exc:  # noqa: BLE001 - a reader's bug costs its reading, never the tick
            from workloads.errors import first_line

            return [], [f"{cli.exe}: not read: {first_line(exc, typed=True)}"]
        if devices:   # the other form answered: the failed one is not this build's
            self._skip.update({key: (now, done) for key, done in failed.items()})
        return [_named(d, cli.exe) for d in devices], problems + self._cut_short(devices, call.asked)

    def _cut_short(self, devices: list[DeviceSample], asked: list[CliResult]) -> list[str]:
        """One line when the cards read may not be all: the answer they came from ended in a failure (a tool that
        hung or died after printing part of its table), or fewer cards than the tool listed before."""
        said: list[str] = []
        if devices and asked and asked[-1].problem:
            said.append(f"{asked[-1].problem}: {len(devices)} card(s) read from what it printed before")
        if devices and len(devices) < self._most:
            said.append(f"{self.name} listed {len(devices)} card(s), {self._most} before: output cut short?")
        self._most = max(self._most, len(devices))
        return said

    def close(self) -> None:
        if self._cwd is not None:
            self._cwd.cleanup()
            self._cwd = None


def _named(device: DeviceSample, exe: str) -> DeviceSample:
    return device if device.source else device.replace(source=exe)
