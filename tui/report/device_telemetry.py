"""What the bundle says of the runs' telemetry: telemetry.csv, the stability table and the host's peaks.

Each reads the runs' telemetry columns (`tui.store.telemetry`), never a dict per reading: a day of 8 devices
at 1 Hz is 691,200 readings. A reading that is missing or not finite is an empty cell and no peak.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any, Iterator, Sequence

from tui.cpu_trap import device_runs
from tui.store import RunRecord
from tui.store.telemetry import MISSING, DeviceColumns, Telemetry
from workloads.rundir.sample_fields import (CPU_PCT, ECC_CORRECTED, ECC_UNCORRECTED, HEALTH, MEM_CLOCK_MHZ,
                                            MEM_TOTAL_BYTES, MEM_USED_BYTES, POWER_LIMIT_W, POWER_W, PSTATE,
                                            REMAPPED_ROWS, RETIRED_PAGES, SM_CLOCK_MHZ, T, TEMPERATURE_C,
                                            THROTTLE_REASONS, UTIL_GPU_PCT, UTIL_MEM_PCT)

_HOST = (CPU_PCT, MEM_USED_BYTES, MEM_TOTAL_BYTES)   # the host's readings each row ends with
# the columns a sample's field fills are named as the field
TELEMETRY_COLUMNS = ["run_id", T, "device_index", "device_name", UTIL_GPU_PCT, UTIL_MEM_PCT, MEM_USED_BYTES,
                     MEM_TOTAL_BYTES, "mem_used_pct", TEMPERATURE_C, POWER_W, POWER_LIMIT_W, SM_CLOCK_MHZ,
                     MEM_CLOCK_MHZ, PSTATE, THROTTLE_REASONS, ECC_CORRECTED, ECC_UNCORRECTED, HEALTH,
                     *(f"host_{field}" for field in _HOST)]


_SAMPLES_PER_CHUNK = 4096


def _quoted(text: str) -> str:
    """A text cell as csv.writer's minimal quoting writes it."""
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(c in text for c in ',"\r\n') else text


class _Cells(dict):
    """value -> its CSV cell, made once per distinct value: most columns repeat a few hundred values a day."""

    def __init__(self, text: bool = False):
        super().__init__({None: ""})
        self._text = text

    def __missing__(self, value: Any) -> str:
        cell = self[value] = _quoted(value) if self._text else str(value)   # str(float) is repr, as csv's
        return cell


def _cells(values: Sequence[Any], text: bool = False) -> list[str]:
    return list(map(_Cells(text).__getitem__, values))


def _number_cells(values: Sequence[Any]) -> list[str]:
    """Cells of a column of distinct values (bytes, shares): no cache to fill."""
    if None not in values:   # every reading there: the loop in C
        return list(map(str, values))
    return ["" if v is None else str(v) for v in values]


def _device_lines(run: str, t_cells: list[str], host_cells: list[str], cols: DeviceColumns, lo: int,
                  hi: int) -> list[str]:
    """The device's rows for its readings lo..hi, as CSV lines, built a column at a time."""
    pos = cols.pos[lo:hi]

    def cells(field: str) -> list[str]:
        return _cells(cols.column(field, lo, hi))

    throttle = [None if r is None else ";".join(r) for r in cols.throttle[lo:hi]]
    columns = [[t_cells[p] for p in pos], _cells(cols.index[lo:hi]), _cells(cols.name[lo:hi], text=True),
               cells(UTIL_GPU_PCT), cells(UTIL_MEM_PCT), _number_cells(cols.column(MEM_USED_BYTES, lo, hi)),
               cells(MEM_TOTAL_BYTES), _number_cells(cols.used_pct(lo, hi)),
               cells(TEMPERATURE_C), _number_cells(cols.column(POWER_W, lo, hi)),   # power: all distinct
               *map(cells, (POWER_LIMIT_W, SM_CLOCK_MHZ, MEM_CLOCK_MHZ)),
               _cells(cols.pstate[lo:hi], text=True), _cells(throttle, text=True), cells(ECC_CORRECTED),
               cells(ECC_UNCORRECTED), _cells(cols.health[lo:hi], text=True), [host_cells[p] for p in pos]]
    return list(map(",".join, zip(repeat(run), *columns)))


def _lines(records: Sequence[RunRecord]) -> Iterator[list[str]]:
    """telemetry.csv's lines, a few thousand samples at a time: per sample, one per device in the order it
    listed them (none: one host-only line)."""
    for record in records:
        telemetry = record.telemetry
        run = _quoted(record.id)
        t_cells = list(map(str, telemetry.t))
        host = [_number_cells(telemetry.host_column(f)) for f in _HOST]
        host_cells = list(map(",".join, zip(*host)))
        devices = list(telemetry.devices.values())
        done = dict.fromkeys((cols.key for cols in devices), 0)
        for first in range(0, len(telemetry), _SAMPLES_PER_CHUNK):
            last = min(first + _SAMPLES_PER_CHUNK, len(telemetry))
            made: dict[str, list[str]] = {}
            for cols in devices:
                lo = done[cols.key]
                hi = done[cols.key] = bisect_left(cols.pos, last, lo)
                made[cols.key] = _device_lines(run, t_cells, host_cells, cols, lo, hi)
            keys = telemetry.order[first]
            if (keys and len(set(keys)) == len(keys) and all(len(made[key]) == last - first for key in keys)
                    and telemetry.order[first:last].count(keys) == last - first):
                # every sample of the piece lists the same devices (a day: all of them): its rows, sample by
                # sample, are the devices' rows interleaved
                yield list(chain.from_iterable(zip(*(made[key] for key in keys))))
                continue
            lines = {key: iter(rows) for key, rows in made.items()}
            out = []
            for i in range(first, last):
                keys = telemetry.order[i]
                if not keys:
                    out.append(f"{run},{t_cells[i]},,host,{',' * 15}{host_cells[i]}")
                out.extend(next(lines[key]) for key in keys)
            yield out


def telemetry_csv_chunks(records: Sequence[RunRecord]) -> Iterator[str]:
    """telemetry.csv as text in pieces of whole lines (a day of 8 devices is 130 MB: never one string)."""
    yield ",".join(TELEMETRY_COLUMNS) + "\n"
    for lines in _lines(records):
        if lines:
            yield "\n".join(lines) + "\n"


def telemetry_csv(records: Sequence[RunRecord]) -> str:
    """One row per device per sample (a sample with no device: one host-only row); a missing value is empty."""
    return "".join(telemetry_csv_chunks(records))


# -- stability ----------------------------------------------------------------------------

@dataclass
class DeviceStability:
    key: str
    name: str | None
    samples: int = 0
    peak_temperature_c: float | None = None
    peak_power_w: float | None = None
    power_limit_w: float | None = None
    min_sm_clock_mhz: float | None = None
    max_sm_clock_mhz: float | None = None
    throttle: dict[str, int] = field(default_factory=dict)  # reason -> samples in which it was active
    throttle_known: bool = False
    ecc_corrected: tuple[int, int] | None = None     # (first, last) volatile count
    ecc_uncorrected: tuple[int, int] | None = None
    retired_pages: tuple[int, int] | None = None
    remapped_rows: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


# (DeviceStability's attribute, the field it is the peak of, max or min)
_PEAKS = (("peak_temperature_c", TEMPERATURE_C, max), ("peak_power_w", POWER_W, max),
          ("power_limit_w", POWER_LIMIT_W, max), ("min_sm_clock_mhz", SM_CLOCK_MHZ, min),
          ("max_sm_clock_mhz", SM_CLOCK_MHZ, max))
_SPANS = (ECC_CORRECTED, ECC_UNCORRECTED, RETIRED_PAGES, REMAPPED_ROWS)   # each DeviceStability's attribute too


def _finite_values(values: Any) -> Sequence[float]:
    """The finite readings of a float column: the column itself when all are (fsum is NaN or infinite as soon as
    one is; one C pass instead of a Python one)."""
    if values and math.isfinite(math.fsum(values)):
        return values
    return [v for v in values if v - v == 0.0]   # NaN and the infinities fail


def _first_last(telemetry: Telemetry, cols: DeviceColumns, name: str) -> tuple[float, int, float, int] | None:
    """(time, value) of the device's first and last reading of a counter, by time."""
    values, t, pos = cols.ints[name], telemetry.t, cols.pos
    if not telemetry.in_time_order():   # the clock stepped back: by time, not by line
        at = sorted((i for i, v in enumerate(values) if v != MISSING), key=lambda i: t[pos[i]])
        if not at:
            return None
        first, last = at[0], at[-1]
    else:
        first = next((i for i, v in enumerate(values) if v != MISSING), None)
        if first is None:
            return None
        last = next(i for i in range(len(values) - 1, first - 1, -1) if values[i] != MISSING)
    return t[pos[first]], values[first], t[pos[last]], values[last]


def stability(records: Sequence[RunRecord]) -> list[DeviceStability]:
    """Per device over every run's telemetry: peaks, throttle reasons seen, ECC and page counters."""
    by_key: dict[str, DeviceStability] = {}
    spans: dict[tuple[str, str], tuple[float, int, float, int]] = {}
    # a CPU run's samples show cards that sat idle, not cards that trained: they are not its data
    for record in sorted(device_runs(records), key=lambda r: r.telemetry.t[0] if len(r.telemetry) else 0.0):
        telemetry = record.telemetry
        for key, cols in telemetry.devices.items():
            st = by_key.setdefault(key, DeviceStability(key=key, name=None))
            st.samples += len(cols)
            st.name = st.name or cols.first_name()
            for attr, column, pick in _PEAKS:
                values = _finite_values(cols.floats[column])
                if values:
                    mine = pick(values)
                    old = getattr(st, attr)
                    setattr(st, attr, mine if old is None else pick(old, mine))
            for reasons, n in Counter(cols.throttle).items():
                if reasons is None:
                    continue
                st.throttle_known = True
                for reason in reasons:
                    st.throttle[reason] = st.throttle.get(reason, 0) + n
            for name in _SPANS:
                span = _first_last(telemetry, cols, name)
                if span is None:
                    continue
                old_span = spans.get((key, name))
                if old_span is not None:
                    first = old_span[:2] if old_span[0] <= span[0] else span[:2]
                    last = span[2:] if span[2] >= old_span[2] else old_span[2:]
                    span = (*first, *last)
                spans[(key, name)] = span
                setattr(st, name, (int(span[1]), int(span[3])))
    return list(by_key.values())


def host_peaks(records: Sequence[RunRecord]) -> dict[str, float | None]:
    """The host's peak CPU use and memory over every run's samples, and the memory it had (the largest total read,
    the bound the peak is read against; None: never read)."""
    cpu = [v for r in records for v in _finite_values(r.telemetry.host[CPU_PCT])]
    mem = [v for r in records for v in r.telemetry.host[MEM_USED_BYTES] if v != MISSING]
    total = [v for r in records for v in r.telemetry.host[MEM_TOTAL_BYTES] if v != MISSING and v > 0]
    return {"peak_cpu_pct": max(cpu) if cpu else None, "peak_mem_used_bytes": max(mem) if mem else None,
            MEM_TOTAL_BYTES: max(total) if total else None}
