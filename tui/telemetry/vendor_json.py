"""Vendor management tools with a JSON mode: AMD's ``amd-smi``/``rocm-smi`` and Hygon's ``hy-smi``.

Parsers are written against real outputs (tests/fixtures/rocm-smi, amd-smi,
hy-smi). ``rocm-smi --json`` and ``hy-smi --json`` share one shape: a
``{"card0": {"<label> (<unit>)": "<text>"}, "system": {...}}`` object whose
labels vary by version and vendor ("GPU use (%)", "DCU use (%)", "HCU use
(%)"), so fields are found by pattern, not by exact key. Some hy-smi versions
print values without commas between them; that is repaired before parsing.
``amd-smi metric --json`` nests ``{"value", "unit"}`` objects instead.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from typing import Any

from tui.telemetry import vendors
from tui.telemetry.cli_tool import Runner, run_bounded
from tui.telemetry.sample import DeviceSample, normalize_bus_id

TIMEOUT_S = 3.0
MIB = 1024 * 1024

# (executable, per-tick arguments, cached arguments or None) in the vendor table's order; the first on PATH is used
TOOLS: list[tuple[str, list[str], list[str] | None]] = [
    (c.exe, list(c.json_args), list(c.json_static_args) if c.json_static_args is not None else None)
    for c in vendors.by_query(vendors.VENDOR_JSON)
]

_NA = {"", "n/a", "na", "not supported", "[n/a]", "[not supported]", "unknown", "none"}


class JsonFormatError(ValueError):
    """The tool printed something that is not its JSON."""


def _loads(text: str) -> Any:
    """json.loads, repairing the missing commas some hy-smi builds print (`"91.0""Average ...": ...`)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    repaired = re.sub(r'"(\s*)"(?=[^"]*"\s*:)', r'",\1"', text)
    try:
        return json.loads(repaired)
    except ValueError as exc:
        raise JsonFormatError(f"not JSON: {exc}") from None


def _num(value: Any) -> float | None:
    """'53.0', '(1402Mhz)', 6, {'value': 6, 'unit': 'W'} -> a float; 'N/A' and friends -> None."""
    if isinstance(value, dict):
        value = value.get("value")
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if text.lower() in _NA:
        return None
    m = re.search(r"[-+]?\d+(?:\.\d+)?", text)
    return float(m.group(0)) if m else None


def _int(value: Any) -> int | None:
    number = _num(value)
    return int(number) if number is not None else None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return None if text.lower() in _NA else text


def _pcie(text: Any) -> tuple[int | None, int | None]:
    """'0 (16.0GT/s x16)', '32.0GT/s, x16 1100Mhz' -> (PCIe generation, width)."""
    if not isinstance(text, str):
        return None, None
    rate = re.search(r"(\d+(?:\.\d+)?)\s*GT/s", text)
    width = re.search(r"x(\d+)", text)
    return (_gen_for_rate(float(rate.group(1))) if rate else None), (int(width.group(1)) if width else None)


def _gen_for_rate(gts: float | None) -> int | None:
    if gts is None:
        return None
    for gen, rate in ((1, 2.5), (2, 5.0), (3, 8.0), (4, 16.0), (5, 32.0), (6, 64.0), (7, 128.0)):
        if abs(gts - rate) < 0.6:
            return gen
    return None


class _Card:
    """Case-insensitive, pattern-based access to one rocm-smi-style card object."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.items = [(str(k).strip().lower().rstrip(":").strip(), v) for k, v in data.items()]

    def get(self, *patterns: str) -> Any:
        for pattern in patterns:
            rx = re.compile(pattern)
            for key, value in self.items:
                if rx.fullmatch(key) and _text(value) is not None:
                    return value
        return None


def parse_rocm_style(text: str, source: str) -> list[DeviceSample]:
    """``rocm-smi --json`` / ``hy-smi --json`` -> one DeviceSample per ``cardN``."""
    data = _loads(text.strip())
    if not isinstance(data, dict):
        raise JsonFormatError("expected an object of cards")
    system = _Card(data.get("system") or {})
    driver = _text(system.get(r"driver version"))
    devices = []
    for key, value in data.items():
        m = re.fullmatch(r"card(\d+)", str(key))
        if not m or not isinstance(value, dict):
            continue
        c = _Card(value)
        mem_total = _memory(c, used=False)
        mem_used = _memory(c, used=True)
        speed = _pcie(c.get(r"pcie clock speed"))  # hy-smi; rocm-smi puts the rate in the level text
        gen, width = speed if speed[0] is not None else _pcie(c.get(r"pcie clock level"))
        bus = _text(c.get(r"pci bus"))
        devices.append(DeviceSample(
            index=int(m.group(1)),
            name=_text(c.get(r"device name", r"card series", r"card sku")),
            bus_id=normalize_bus_id(bus) if bus else None,
            uuid=_text(c.get(r"unique id")),
            driver_version=driver,
            util_gpu_pct=_num(c.get(r"(gpu|dcu|hcu) use \(%\)")),
            util_mem_pct=_num(c.get(r"gpu memory read/write activity \(%\)", r"gpu memory use \(%\)")),
            mem_used_bytes=mem_used,
            mem_total_bytes=mem_total,
            temperature_c=_num(c.get(r"temperature \(sensor edge\) \(c\)", r"temperature \(sensor junction\) \(c\)",
                                     r"temperature \(sensor [^)]*\) \(c\)")),
            power_w=_num(c.get(r"(average|current socket) graphics package power \(w\)")),
            power_limit_w=_num(c.get(r"max graphics package power \(w\)")),
            sm_clock_mhz=_num(c.get(r"sclk clock speed")),
            mem_clock_mhz=_num(c.get(r"mclk clock speed")),
            fan_pct=_num(c.get(r"fan speed \(%\)")),
            pcie_gen=gen,
            pcie_width=width,
            source=source,
        ))
    return devices


def _memory(c: _Card, used: bool) -> int | None:
    label = r"vram total used memory" if used else r"vram total memory"
    for unit, factor in (("b", 1), ("mib", MIB), ("mb", MIB), ("kib", 1024), ("gib", 1024 * MIB)):
        value = _num(c.get(rf"{label} \({unit}\)"))
        if value is not None:
            return int(value * factor)
    return None


def _gpu_list(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        data = data.get("gpu_data", data.get("gpus", []))
    return [g for g in data if isinstance(g, dict)] if isinstance(data, list) else []


def _dig(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _mib_bytes(value: Any) -> int | None:
    """amd-smi's {'value': 8176, 'unit': 'MB'} (binary megabytes, as its totals show) -> bytes."""
    number = _num(value)
    if number is None:
        return None
    unit = str(value.get("unit", "MB")).lower() if isinstance(value, dict) else "mb"
    factor = {"b": 1, "kb": 1024, "mb": MIB, "mib": MIB, "gb": 1024 * MIB, "gib": 1024 * MIB}.get(unit, MIB)
    return int(number * factor)


def parse_amd_smi(metric_text: str, static_text: str | None = None, source: str = "amd-smi") -> list[DeviceSample]:
    """``amd-smi metric --json`` (+ ``amd-smi static --json`` for names, bus ids, limits)."""
    metrics = _gpu_list(_loads(metric_text.strip()))
    try:
        statics = {g.get("gpu"): g for g in _gpu_list(_loads(static_text.strip()))} if static_text else {}
    except JsonFormatError:
        statics = {}  # names and limits are extras; the metrics still count
    devices = []
    for g in metrics:
        index = _int(g.get("gpu"))
        s = statics.get(g.get("gpu"), {})
        throttle = _text(_dig(g, "power", "throttle_status"))
        bus = _text(_dig(s, "bus", "bdf"))
        gen_max = re.search(r"\d+", _text(_dig(s, "bus", "pcie_interface_version")) or "")
        devices.append(DeviceSample(
            index=index,
            name=_text(_dig(s, "asic", "market_name")),
            bus_id=normalize_bus_id(bus) if bus else None,
            driver_version=_text(_dig(s, "driver", "version")),
            util_gpu_pct=_num(_dig(g, "usage", "gfx_activity")),
            util_mem_pct=_num(_dig(g, "usage", "umc_activity")),
            mem_used_bytes=_mib_bytes(_dig(g, "mem_usage", "used_vram")),
            mem_total_bytes=_mib_bytes(_dig(g, "mem_usage", "total_vram")),
            temperature_c=_num(_dig(g, "temperature", "edge")) if _num(_dig(g, "temperature", "edge")) is not None
            else _num(_dig(g, "temperature", "hotspot")),
            power_w=_num(_dig(g, "power", "socket_power")),
            power_limit_w=_num(_dig(s, "limit", "socket_power")) or _num(_dig(s, "limit", "max_power")),
            sm_clock_mhz=_num(_dig(g, "clock", "gfx_0", "clk")),
            sm_clock_max_mhz=_num(_dig(g, "clock", "gfx_0", "max_clk")),
            mem_clock_mhz=_num(_dig(g, "clock", "mem_0", "clk")),
            mem_clock_max_mhz=_num(_dig(g, "clock", "mem_0", "max_clk")),
            fan_pct=_num(_dig(g, "fan", "usage")),
            throttle_reasons=(() if throttle.upper() == "UNTHROTTLED" else (throttle.lower(),)) if throttle else None,
            pcie_gen=_gen_for_rate(_num(_dig(g, "pcie", "speed"))),
            pcie_gen_max=int(gen_max.group(0)) if gen_max else None,
            pcie_width=_int(_dig(g, "pcie", "width")),
            pcie_width_max=_int(_dig(s, "bus", "max_pcie_width")),
            ecc_corrected=_int(_dig(g, "ecc", "total_correctable_count")),
            ecc_uncorrected=_int(_dig(g, "ecc", "total_uncorrectable_count")),
            source=source,
        ))
    return devices


class VendorJsonSource:
    """The first vendor JSON tool on PATH (looked up once)."""

    def __init__(self, tools: list[tuple[str, list[str], list[str] | None]] | None = None,
                 timeout: float = TIMEOUT_S, runner: Runner = run_bounded, static_ttl: float = 300.0) -> None:
        self.tools = tools if tools is not None else TOOLS
        self.timeout = timeout
        self._run = runner
        self.static_ttl = static_ttl
        self._tool: tuple[str, str, list[str], list[str] | None] | None = None
        self._looked = False
        self._static: tuple[float, str | None] | None = None

    @property
    def name(self) -> str:
        return self._tool[0] if self._tool else "vendor-json"

    def available(self) -> bool:
        if not self._looked:
            self._looked = True
            for exe, args, static in self.tools:
                path = shutil.which(exe)
                if path:
                    self._tool = (exe, path, args, static)
                    break
        return self._tool is not None

    def describe(self) -> str:
        if self.available():
            assert self._tool is not None
            return f"{self.name} at {self._tool[1]}"
        return f"no vendor JSON tool on PATH ({', '.join(t[0] for t in self.tools)})"

    def close(self) -> None:
        pass

    def _call(self, args: list[str]) -> tuple[str | None, str | None]:
        assert self._tool is not None
        done = self._run([self._tool[1]] + args, self.timeout)
        return (None, done.problem) if done.problem else (done.stdout, None)

    def read(self) -> tuple[list[DeviceSample], list[str]]:
        if not self.available():
            return [], []
        assert self._tool is not None
        exe, _, args, static_args = self._tool
        out, problem = self._call(args)
        if out is None:
            return [], [problem or f"{exe}: failed"]
        errors: list[str] = []
        try:
            if exe == "amd-smi":
                static = self._static_text(static_args, errors)
                devices = parse_amd_smi(out, static, source=exe)
            else:
                devices = parse_rocm_style(out, source=exe)
        except (JsonFormatError, TypeError, AttributeError) as exc:
            return [], [f"{exe}: {exc}"]
        return devices, errors

    def _static_text(self, args: list[str] | None, errors: list[str]) -> str | None:
        if not args:
            return None
        now = time.monotonic()
        if self._static is None or now - self._static[0] > self.static_ttl:
            out, problem = self._call(args)
            if problem:
                errors.append(problem)
            self._static = (now, out)
        return self._static[1]
