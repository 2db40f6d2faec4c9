"""An nvidia-smi-compatible CLI: ``--query-gpu=... --format=csv,noheader,nounits``.

Also under vendor names that accept the same syntax (Iluvatar's ``ixsmi``,
MetaX's ``mx-smi`` in its nvidia-smi mode...). Copes with what real CLIs print:
'[N/A]', 'N/A', '[Not Supported]', 'ERR!', units left on values although
``nounits`` was asked, and power in mW where W was expected. A field the CLI
does not know makes it refuse the whole query ('Field "x" is not a valid field
to query'), so such fields are dropped and the working list is remembered.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from typing import Any

from tui.telemetry import vendors
from tui.telemetry.cli_tool import Runner, run_bounded
from tui.telemetry.sample import DeviceProcess, DeviceSample, normalize_bus_id

# names tried in the vendor table's order; the first one on PATH is used
CLI_NAMES = vendors.names(vendors.SMI_CSV)
TIMEOUT_S = 3.0
MIB = 1024 * 1024

# --query-gpu field -> (DeviceSample field, kind); kinds convert the text
QUERY_FIELDS: list[tuple[str, str, str]] = [
    ("index", "index", "int"),
    ("name", "name", "str"),
    ("pci.bus_id", "bus_id", "bus"),
    ("uuid", "uuid", "str"),
    ("driver_version", "driver_version", "str"),
    ("utilization.gpu", "util_gpu_pct", "pct"),
    ("utilization.memory", "util_mem_pct", "pct"),
    ("memory.used", "mem_used_bytes", "mib"),
    ("memory.total", "mem_total_bytes", "mib"),
    ("memory.reserved", "mem_reserved_bytes", "mib"),
    ("temperature.gpu", "temperature_c", "float"),
    ("power.draw", "power_w", "watt"),
    ("power.limit", "power_limit_w", "watt"),
    ("clocks.sm", "sm_clock_mhz", "mhz"),
    ("clocks.max.sm", "sm_clock_max_mhz", "mhz"),
    ("clocks.mem", "mem_clock_mhz", "mhz"),
    ("clocks.max.mem", "mem_clock_max_mhz", "mhz"),
    ("fan.speed", "fan_pct", "pct"),
    ("pstate", "pstate", "str"),
    ("pcie.link.gen.current", "pcie_gen", "int"),
    ("pcie.link.gen.max", "pcie_gen_max", "int"),
    ("pcie.link.width.current", "pcie_width", "int"),
    ("pcie.link.width.max", "pcie_width_max", "int"),
    ("clocks_event_reasons.active", "throttle_reasons", "reasons"),
    ("ecc.errors.corrected.volatile.total", "ecc_corrected", "int"),
    ("ecc.errors.uncorrected.volatile.total", "ecc_uncorrected", "int"),
    ("retired_pages.single_bit_ecc.count", "retired_pages", "int"),
    ("remapped_rows.correctable", "remapped_rows", "int"),
    ("pcie.replay_counter", "pcie_replays", "int"),
    # time the clocks were held down, cumulative, in microseconds (drivers from about 535; older ones refuse the
    # field and it is dropped): NVML's power and thermal violation time
    ("clocks_event_reasons_counters.sw_power_cap", "power_violation_s", "us"),
    ("clocks_event_reasons_counters.sw_thermal_slowdown", "thermal_violation_s", "us"),
]
# older drivers know the throttle name only
ALIASES = {"clocks_event_reasons.active": "clocks_throttle_reasons.active"}

MISSING = re.compile(r"^\[?\s*(n/?a|not supported|unknown error|err!?|gpu is lost|insufficient permissions|"
                     r"deprecated.*|requested functionality has been deprecated|no data|not available)\s*\]?$",
                     re.IGNORECASE)
NUMBER = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*([A-Za-z%/]*)$")
INVALID_FIELD = re.compile(r'Field "([^"]+)" is not a valid field to query', re.IGNORECASE)

# throttle-reason bits as nvidia-smi prints the mask ("0x0000000000000004")
_REASON_BITS = [(0x1, "idle"), (0x2, "app clocks"), (0x4, "power cap"), (0x8, "hw slowdown"),
                (0x10, "sync boost"), (0x20, "sw thermal"), (0x40, "hw thermal"), (0x80, "power brake"),
                (0x100, "display clocks")]


def parse_value(text: str | None, kind: str) -> Any:
    """One CSV cell -> a value, or None for any way a CLI says 'not available'."""
    if text is None:
        return None
    text = text.strip()
    if not text or MISSING.match(text):
        return None
    if kind == "str":
        return text
    if kind == "bus":
        return normalize_bus_id(text)
    if kind == "reasons":
        try:
            mask = int(text, 16) if text.lower().startswith("0x") else int(text)
        except ValueError:
            return None
        return tuple(word for bit, word in _REASON_BITS if mask & bit)
    m = NUMBER.match(text)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2).lower()
    if kind == "int":
        return int(number)
    if kind in ("pct", "float", "mhz"):
        if unit == "ghz":
            number *= 1000
        return number
    if kind == "mib":
        factor = {"": MIB, "mib": MIB, "mb": MIB, "gib": 1024 * MIB, "gb": 1024 * MIB,
                  "kib": 1024, "kb": 1024, "b": 1}.get(unit, MIB)
        return int(number * factor)
    if kind == "us":
        return number / {"": 1e6, "us": 1e6, "ms": 1e3, "s": 1.0}.get(unit, 1e6)
    if kind == "watt":
        # nounits promises W; some compatibility CLIs print "36180 mW", or bare mW: no single card
        # draws 5 kW, so a bare number above that is mW
        if unit == "mw" or (unit == "" and number > 5000):
            number /= 1000.0
        return round(number, 2)
    return None


def parse_query_gpu(text: str, query: list[str]) -> list[DeviceSample]:
    """Rows of ``--query-gpu=<query> --format=csv,noheader,nounits`` -> DeviceSamples (source unset)."""
    kinds = {q: (f, k) for q, f, k in QUERY_FIELDS}
    kinds.update({alias: kinds[q] for q, alias in ALIASES.items()})
    devices = []
    for row in csv.reader(io.StringIO(text), skipinitialspace=True):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(query):
            continue  # a warning line, or a name with a comma the CLI did not quote
        values: dict[str, Any] = {}
        for q, cell in zip(query, row):
            if q not in kinds:
                continue
            field, kind = kinds[q]
            value = parse_value(cell, kind)
            if value is not None:
                values[field] = value
        devices.append(DeviceSample(**values))
    return devices


def parse_compute_apps(text: str) -> dict[str, list[DeviceProcess]]:
    """``--query-compute-apps=gpu_bus_id,pid,process_name,used_memory --format=csv,noheader,nounits``."""
    out: dict[str, list[DeviceProcess]] = {}
    for row in csv.reader(io.StringIO(text), skipinitialspace=True):
        if len(row) < 4 or "no running" in ",".join(row).lower():
            continue
        bus = parse_value(row[0], "bus")
        if bus is None:
            continue
        name = ",".join(row[2:-1]).strip() or None  # a process name may hold commas
        out.setdefault(bus, []).append(DeviceProcess(parse_value(row[1], "int"), name,
                                                     parse_value(row[-1], "mib")))
    return out


class SmiCsvSource:
    """The first nvidia-smi-compatible CLI on PATH. ``which`` is looked up once, not on every tick."""

    def __init__(self, names: tuple[str, ...] = CLI_NAMES, timeout: float = TIMEOUT_S,
                 runner: Runner = run_bounded, processes: bool = True) -> None:
        self.names = names
        self.timeout = timeout
        self._run = runner
        self._want_processes = processes
        self._path: str | None = None
        self._exe_name: str | None = None
        self._looked = False
        self._query = [q for q, _, _ in QUERY_FIELDS]
        self._apps_ok = True

    @property
    def name(self) -> str:
        return self._exe_name or self.names[0]

    def available(self) -> bool:
        if not self._looked:
            self._looked = True
            for candidate in self.names:
                path = shutil.which(candidate)
                if path:
                    self._path, self._exe_name = path, candidate
                    break
        return self._path is not None

    def describe(self) -> str:
        if self.available():
            return f"{self.name} at {self._path}"
        return f"no nvidia-smi-compatible CLI on PATH ({', '.join(self.names)})"

    def close(self) -> None:
        pass

    def _call(self, args: list[str]) -> tuple[str | None, str | None]:
        """(stdout, None) or (None, one-line problem)."""
        done = self._run([self._path or self.name] + args, self.timeout)
        return (None, done.problem) if done.problem else (done.stdout, None)

    def read(self) -> tuple[list[DeviceSample], list[str]]:
        if not self.available():
            return [], []
        for _ in range(len(QUERY_FIELDS)):
            out, problem = self._call([f"--query-gpu={','.join(self._query)}", "--format=csv,noheader,nounits"])
            if out is not None:
                break
            bad = INVALID_FIELD.search(problem or "")
            if bad is None or bad.group(1) not in self._query:
                return [], [problem or f"{self.name}: failed"]
            field = bad.group(1)
            index = self._query.index(field)
            if field in ALIASES:
                self._query[index] = ALIASES[field]  # try the older name once
            else:
                del self._query[index]
        else:
            return [], [f"{self.name}: refuses every query field"]
        devices = [d.replace(source=self.name) for d in parse_query_gpu(out, self._query)]
        errors: list[str] = []
        if self._want_processes and self._apps_ok and devices:
            devices, errors = self._with_processes(devices)
        return devices, errors

    def _with_processes(self, devices: list[DeviceSample]) -> tuple[list[DeviceSample], list[str]]:
        out, problem = self._call(["--query-compute-apps=gpu_bus_id,pid,process_name,used_memory",
                                   "--format=csv,noheader,nounits"])
        if out is None:
            if problem and "not a valid" in problem.lower():
                self._apps_ok = False  # this CLI has no process query; do not ask every tick
                return devices, []
            return devices, [problem] if problem else []
        apps = parse_compute_apps(out)
        return [d.replace(processes=tuple(apps.get(d.bus_id, ()))) if d.bus_id else d for d in devices], []
