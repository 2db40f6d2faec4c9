"""A run's telemetry as columns (`Telemetry`), decoded from telemetry.jsonl in one pass. UI-free.

A day of 8 devices at 1 Hz is 86,400 lines of ~7 KB (626 MB of JSON): held as dicts it took 2.5 GiB and 40 s to
read and walk. Here each line's read fields (`workloads.rundir.sample_fields.READ_DEVICE`, `READ_HOST`) are decoded and
type-checked in C by msgspec (`tui.store.telemetry_codec`), the others passed over unread, and what the report and the plots read is kept as
one column per device and field: numbers in arrays (8 bytes a reading), names and states interned. The same day
is ~100 MB.

A line msgspec will not take as it is (a NaN, a null reading, a wrong type) goes the slow way: json, then
`tui.store.samples.telemetry_sample_ok`, the one definition of a usable sample; a line that fails is skipped and
counted.

    telemetry = Telemetry()
    skipped = telemetry.add_lines(raw_lines)   # how many were not usable samples (count them)
    telemetry.add(sample_dict)      # a decoded sample (the follower's, a test's)
    len(telemetry), telemetry.t, telemetry.devices["0000:18:00.0"].column("power_w"), telemetry.newest()
"""

from __future__ import annotations

import json
import math
import operator
from array import array
from bisect import bisect_left
from operator import attrgetter
from typing import Any, Iterable, Iterator, Sequence

from tui.store.samples import telemetry_sample_ok
from workloads.rundir.sample_fields import (BUS_ID, CPU_PCT, DEVICES, FLOAT_FIELDS, HEALTH, HOST, INDEX, INT_FIELDS,
                                            MEM_TOTAL_BYTES, MEM_USED_BYTES, NAME, PCI_VENDOR, PSTATE, READ_HOST, T,
                                            THROTTLE_REASONS)
from tui.store.telemetry_codec import MISSING, NAN, codec, columnar, float_reading, int_reading, lines_of, slow_way

__all__ = ["MISSING", "DeviceColumns", "Telemetry", "read_telemetry", "read_telemetry_files"]

_BATCH = 4096
_INDEX, _NAME, _PSTATE, _HEALTH, _THROTTLE, _VENDOR = (
    attrgetter(f) for f in (INDEX, NAME, PSTATE, HEALTH, THROTTLE_REASONS, PCI_VENDOR))


def _grown(groups: dict[str, tuple[Any, Any, Any]], key: str) -> tuple[list[Any], list[int], list[int]]:
    """``groups[key]`` as lists that take more (a first stretch is held as it came: a range, a repeated place)."""
    group = groups.get(key)
    if group is None:
        group = groups[key] = ([], [], [])
    elif not isinstance(group[1], list):
        group = groups[key] = (group[0], list(group[1]), list(group[2]))
    return group


# (from, to, order): samples listing the same devices; a device's (readings, samples, places)
_Stretch = tuple[int, int, tuple[str, ...]]
_Group = tuple[list[Any], Sequence[int], Sequence[int]]


def _grouped(batch: list[Any], first: int, runs: list[_Stretch]) -> dict[str, _Group]:
    """A device's readings per stretch of samples listing the same devices (a day: one stretch a batch), a
    column at a time: the k-th device of each; by the device's key."""
    groups: dict[str, _Group] = {}
    for lo, hi, order in runs:
        stretch = batch[lo - first:hi - first]
        if len(set(order)) < len(order):   # one key twice in a sample: its readings in sample order
            for i, sample in enumerate(stretch, lo):
                for place, (key, d) in enumerate(zip(order, sample.devices)):
                    group = _grown(groups, key)
                    group[0].append(d)
                    group[1].append(i)
                    group[2].append(place)
            continue
        for place, key in enumerate(order):
            readings = [s.devices[place] for s in stretch]
            if key not in groups:
                groups[key] = (readings, range(lo, hi), [place] * (hi - lo))
                continue
            group = _grown(groups, key)
            group[0].extend(readings)
            group[1].extend(range(lo, hi))
            group[2].extend([place] * (hi - lo))
    return groups


def memory_pct(used: float | None, total: float | None) -> float | None:
    """Memory used as a share of the total, in %; None where either is missing or the total is not positive: the
    memory series of the screen's plots (a live sample's, `tui.workbench.history`) and of the report's chart."""
    return 100.0 * used / total if used is not None and total is not None and total > 0 else None


def _shares(used: Sequence[int], total: Sequence[int]) -> list[float | None]:
    """`memory_pct` per reading, MISSING read as missing."""
    if used and total and MISSING not in used and MISSING not in total and min(total) > 0:   # the usual case, in C
        return list(map(operator.truediv, map((100.0).__mul__, used), total))
    return [memory_pct(None if u == MISSING else u, None if t == MISSING else t) for u, t in zip(used, total)]


class DeviceColumns:
    """One device's readings (a device: its bus id, else its index), in the order of the samples holding it."""

    __slots__ = ("key", "pos", "index", "place", "name", "pstate", "health", "throttle", "pci_vendor", "floats", "ints")

    def __init__(self, key: str):
        self.key = key
        self.pos = array("l")       # the sample each reading is from (Telemetry.t[pos[i]] is its time)
        self.index: list[Any] = []  # its own index in that sample (None: it had none, a PCI-only card)
        self.place: list[int] = []  # its place in that sample's list (where it had no index, what stands for it)
        self.name: list[str | None] = []
        self.pstate: list[str | None] = []
        self.health: list[str | None] = []   # the card's state in its tool's word (npu-smi's Health)
        self.throttle: list[tuple[str, ...] | None] = []   # None: not read
        self.pci_vendor: str | None = None
        self.floats = {name: array("d") for name in FLOAT_FIELDS}
        self.ints = {name: array("q") for name in INT_FIELDS}

    def __len__(self) -> int:
        return len(self.pos)

    def column(self, field: str, lo: int = 0, hi: int | None = None) -> list[float | int | None]:
        """A field's readings (lo..hi), None where there was none (or it was not finite)."""
        if field in self.floats:
            values = self.floats[field][lo:hi]
            if math.isfinite(math.fsum(values)):   # every reading there (the usual case): one C pass
                return values.tolist()
            return [None if v != v else v for v in values]
        values = self.ints[field][lo:hi]
        if MISSING not in values:
            return values.tolist()
        return [None if v == MISSING else v for v in values]

    def used_pct(self, lo: int = 0, hi: int | None = None) -> list[float | None]:
        """Memory used as a share of the total, per reading (lo..hi; None where either is missing)."""
        return _shares(self.ints[MEM_USED_BYTES][lo:hi], self.ints[MEM_TOTAL_BYTES][lo:hi])

    def label_index(self, at: int = 0) -> Any:
        """The index a reading is shown under: the device's own, else its place in the sample's list."""
        index = self.index[at]
        return self.place[at] if index is None else index

    def first_name(self) -> str | None:
        return next((n for n in self.name if n), None)


class Telemetry:
    """A run's usable telemetry samples as columns, and the newest sample whole (:meth:`newest`: the screen's device
    pane)."""

    def __init__(self) -> None:
        self.t = array("d")
        self.order: list[tuple[str, ...]] = []            # per sample: its devices' keys, as it listed them
        self.devices: dict[str, DeviceColumns] = {}
        self.has_host = array("b")
        # the host's CPU use (%) and memory (bytes): NaN / MISSING where a sample had no host or no reading
        self.host = {CPU_PCT: array("d"), MEM_USED_BYTES: array("q"), MEM_TOTAL_BYTES: array("q")}
        self._last: dict[str, Any] | None = None
        self._ordered, self._ordered_upto = True, 0
        self._last_line: bytes | None = None
        self._orders: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._strings: dict[str, str] = {}
        self._throttles: dict[tuple[str, ...], tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self.t)

    @classmethod
    def of(cls, samples: Any, checked: bool = False) -> "Telemetry":
        """``samples`` as columns: a Telemetry as it is; sample dicts or `tui.telemetry.Sample` objects added one by
        one (a record built in memory: the follower's, a test's), what is not a usable sample left out (``checked``:
        the caller has kept only those, with telemetry_sample_ok)."""
        if isinstance(samples, Telemetry):
            return samples
        telemetry = cls()
        for sample in samples or ():
            if not isinstance(sample, dict) and hasattr(sample, "to_dict"):
                sample = sample.to_dict()
            telemetry.add(sample, checked)
        return telemetry

    # -- adding ---------------------------------------------------------------------------------------------
    def add_lines(self, lines: Iterable[bytes | memoryview], after: float | None = None) -> int:
        """telemetry.jsonl lines (bytes, or views of them), in order; how many were not usable samples (nothing is
        kept of those).

        ``after``: keep only samples newer than it and than every sample kept before them (a follower's plots
        keep their time axis in order when the clock steps back); None keeps every usable sample."""
        skipped, batch = 0, []
        decode, errors, _ = codec()
        newest = -math.inf if after is None else after
        for line in lines:
            try:
                sample = decode(line)
            except errors:
                line = bytes(line)   # a memoryview of a file's bytes (read_telemetry_files)
                if not line.strip():
                    continue
                data = slow_way(line)
                if data is None:
                    skipped += 1
                    continue
                if after is not None:
                    if data[T] <= newest:
                        continue
                    newest = data[T]
                batch.append(columnar(data))
                self._last, self._last_line = data, None
            else:
                if sample.t.__class__ is float and sample.t - sample.t != 0.0:   # NaN or infinite
                    skipped += 1
                    continue
                if after is not None:
                    if sample.t <= newest:
                        continue
                    newest = sample.t
                batch.append(sample)
                self._last_line = line
            if len(batch) >= _BATCH:
                self._add(batch)
                batch = []
        self._add(batch)
        if self._last_line is not None and self._last_line.__class__ is not bytes:
            self._last_line = bytes(self._last_line)   # not a view holding a whole file's bytes
        return skipped

    def extend(self, later: "Telemetry") -> None:
        """``later``'s samples after these (the later part of a run, read apart: `tui.store.telemetry_read`), as
        if their lines had been added here."""
        if not len(later):
            return
        first = len(self.t)
        self.t.extend(later.t)
        self.has_host.extend(later.has_host)
        for name, column in self.host.items():
            column.extend(later.host[name])
        strings = self._strings
        interned: dict[tuple[str, ...], tuple[str, ...]] = {}
        for order in later.order:
            mine = interned.get(order)
            if mine is None:
                mine = interned[order] = tuple([strings.setdefault(k, k) for k in order])
            self.order.append(mine)
        for key, theirs in later.devices.items():
            cols = self.devices.get(key)
            if cols is None:
                cols = self.devices[key] = DeviceColumns(strings.setdefault(key, key))
            cols.pos.extend(map(first.__add__, theirs.pos))
            for mine_list, their_list in ((cols.index, theirs.index), (cols.place, theirs.place),
                                          (cols.name, theirs.name), (cols.pstate, theirs.pstate),
                                          (cols.health, theirs.health),
                                          (cols.throttle, theirs.throttle)):
                mine_list.extend(their_list)
            cols.pci_vendor = cols.pci_vendor or theirs.pci_vendor
            for field in FLOAT_FIELDS:
                cols.floats[field].extend(theirs.floats[field])
            for field in INT_FIELDS:
                cols.ints[field].extend(theirs.ints[field])
        self._last, self._last_line = later._last, later._last_line

    def add(self, data: dict[str, Any], checked: bool = False) -> bool:
        """A decoded sample (as telemetry.jsonl holds it); False when it is not usable."""
        if not checked and not telemetry_sample_ok(data):
            return False
        self._add([columnar(data)])
        self._last, self._last_line = data, None
        return True

    def newest(self) -> dict[str, Any] | None:
        """The newest sample as written, as a dict (decoded on demand: only the screen's device pane asks)."""
        if self._last_line is not None:
            try:
                self._last = json.loads(self._last_line)
            except (ValueError, RecursionError):   # msgspec took it: json does, unless nested past its depth
                self._last = self.sample(len(self.t) - 1)
            self._last_line = None
        return self._last

    def _add(self, batch: list[Any]) -> None:
        """Samples' readings gathered per device, then each column extended in one go: a day's 691,200 device
        readings in about a second (one append per field and reading took six)."""
        first = len(self.t)
        self._add_hosts(batch)
        runs = self._add_orders(batch, first)
        self._add_devices(_grouped(batch, first, runs))

    def _add_hosts(self, batch: list[Any]) -> None:
        """The samples' times and host readings (NaN or MISSING where a sample has no host)."""
        self.t.extend([float(s.t) for s in batch])
        self.has_host.extend([s.host is not None for s in batch])
        hosts = [s.host for s in batch]
        self.host[CPU_PCT].extend([float_reading(h.cpu_pct) if h is not None else NAN for h in hosts])
        for name in (MEM_USED_BYTES, MEM_TOTAL_BYTES):
            self.host[name].extend([int_reading(getattr(h, name)) if h is not None else MISSING for h in hosts])

    def _add_orders(self, batch: list[Any], first: int) -> list[_Stretch]:
        """Each sample's device order (its devices' keys) recorded; the stretches of samples (numbered from
        ``first``) listing the same devices."""
        orders, order_of = self._orders, self.order
        runs: list[_Stretch] = []
        for i, sample in enumerate(batch, first):
            devices = sample.devices or ()
            keys = tuple([d.bus_id for d in devices])
            order = orders.get(keys)
            if order is None:
                order = self._keys(devices)
                if all(bus.__class__ is str and bus for bus in keys):   # else the keys hang on the indices too
                    orders[keys] = order
            order_of.append(order)
            if runs and runs[-1][2] == order:
                runs[-1] = (runs[-1][0], i + 1, order)
            else:
                runs.append((i, i + 1, order))
        return runs

    def _add_devices(self, groups: dict[str, _Group]) -> None:
        """Each device's gathered readings appended to its columns (made on its first reading)."""
        strings, throttles = self._strings, self._throttles
        for key, (readings, at, places) in groups.items():
            cols = self.devices.get(key)
            if cols is None:
                cols = self.devices[key] = DeviceColumns(key)
            cols.pos.extend(at)
            cols.index.extend(map(_INDEX, readings))
            cols.place.extend(places)
            cols.name.extend([strings.setdefault(v, v) if v.__class__ is str else None
                              for v in map(_NAME, readings)])
            cols.pstate.extend([strings.setdefault(v, v) if v.__class__ is str else None
                                for v in map(_PSTATE, readings)])
            cols.health.extend([strings.setdefault(v, v) if v.__class__ is str else None
                                for v in map(_HEALTH, readings)])
            cols.throttle.extend([None if v is None else throttles.setdefault(tuple(v), tuple(v))
                                  for v in map(_THROTTLE, readings)])
            if cols.pci_vendor is None:
                cols.pci_vendor = next((v for v in map(_VENDOR, readings) if v.__class__ is str), None)
            for field in FLOAT_FIELDS:   # floats and ints already: see _structs
                cols.floats[field].extend(map(attrgetter(field), readings))
            for field in INT_FIELDS:
                cols.ints[field].extend(map(attrgetter(field), readings))

    def _keys(self, devices: Sequence[Any]) -> tuple[str, ...]:
        """A sample's devices' keys: the bus id, else "index:N" (its index, else its place in the list)."""
        keys = []
        for place, d in enumerate(devices):
            bus = d.bus_id
            key = bus if bus.__class__ is str and bus else f"index:{d.index if d.index is not None else place}"
            keys.append(self._strings.setdefault(key, key))
        return tuple(keys)

    # -- reading ------------------------------------------------------------------------------------------------
    def in_time_order(self) -> bool:
        """Are the samples in time order (as written, unless the clock stepped back)? Asked once per reader."""
        if self._ordered_upto != len(self.t):
            t = self.t
            self._ordered = self._ordered and all(map(operator.le, t[max(self._ordered_upto - 1, 0):],
                                                      t[max(self._ordered_upto, 1):]))
            self._ordered_upto = len(t)
        return self._ordered

    def host_used_pct(self, hi: int | None = None) -> list[float | None]:
        """The host's memory used as a share of its total, per sample (..hi; None where either is missing)."""
        return _shares(self.host[MEM_USED_BYTES][:hi], self.host[MEM_TOTAL_BYTES][:hi])

    def host_column(self, field: str, hi: int | None = None) -> list[float | int | None]:
        """A host field per sample (..hi), None where there was no reading."""
        return [None if v != v or v == MISSING else v for v in self.host[field][:hi]]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The samples as dicts of the kept fields (for a caller that reads a few; the report reads columns)."""
        return (self.sample(i) for i in range(len(self.t)))

    @staticmethod
    def _device_dict(cols: DeviceColumns, at: int) -> dict[str, Any]:
        d: dict[str, Any] = {} if cols.index[at] is None else {INDEX: cols.index[at]}
        if cols.key[:6] != "index:":
            d[BUS_ID] = cols.key
        for field, value in ((NAME, cols.name[at]), (PSTATE, cols.pstate[at]), (HEALTH, cols.health[at])):
            if value is not None:
                d[field] = value
        if cols.throttle[at] is not None:
            d[THROTTLE_REASONS] = list(cols.throttle[at])
        d.update((f, v) for f in FLOAT_FIELDS if (v := cols.floats[f][at]) == v)
        d.update((f, v) for f in INT_FIELDS if (v := cols.ints[f][at]) != MISSING)
        return d

    def __getitem__(self, i: int) -> dict[str, Any]:
        return self.sample(i)

    def sample(self, i: int) -> dict[str, Any]:
        """Sample ``i`` (negative from the end) as a dict of the kept fields, without building the others."""
        i = range(len(self.t))[i]
        row: dict[str, Any] = {T: self.t[i], DEVICES: []}
        seen: dict[str, int] = {}
        for key in self.order[i]:
            cols = self.devices[key]
            at = bisect_left(cols.pos, i) + seen.get(key, 0)
            seen[key] = seen.get(key, 0) + 1
            row[DEVICES].append(self._device_dict(cols, at))
        if self.has_host[i]:
            row[HOST] = {f: v for f in READ_HOST if (v := self.host[f][i]) == v and v != MISSING}
        return row


def read_telemetry(lines: Iterable[bytes]) -> tuple[Telemetry, int]:
    """Columns of the usable samples among ``lines``, and how many were not."""
    telemetry = Telemetry()
    return telemetry, telemetry.add_lines(lines)


def read_telemetry_files(buffers: Iterable[bytes]) -> tuple[Telemetry, int]:
    """Columns of the usable samples in these files' bytes (`workloads.rundir.read.read_buffers`), in order,
    and how many lines were not."""
    telemetry = Telemetry()
    # line by line in batches: one msgspec call per segment (decode_lines) held a segment's samples at once and
    # was slower (4.3 s against 3.9 s for the day)
    return telemetry, sum(telemetry.add_lines(lines_of(data)) for data in buffers)


