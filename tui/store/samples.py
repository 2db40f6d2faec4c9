"""Is a decoded telemetry.jsonl line a sample the report and the plots can use? (`telemetry_sample_ok`). UI-free.

The fields read from a run's samples (`READ_DEVICE`, `READ_HOST` of workloads.rundir.sample_fields: what the
report, the charts and the plots show) must have the types `tui.telemetry.sample` gives them; the others are never
read from disk, so they are not checked (checking a day's process lists and version strings was most of the time
of reading its samples). The run record (`tui.store.telemetry`, which decodes the same fields in C) and the
follower (`tui.store.follow`) skip and count a line that fails.
"""

from __future__ import annotations

import math
from typing import Any

from workloads import protocol
from workloads.rundir.sample_fields import DEVICES, ERRORS, HOST, READ_DEVICE, READ_HOST, SOURCES, T, THROTTLE_REASONS


def _telemetry_types() -> tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]:
    from tui.telemetry.sample import DeviceSample, HostSample

    return protocol.field_types(DeviceSample), protocol.field_types(HostSample)


_ALL_DEVICE_TYPES, _ALL_HOST_TYPES = _telemetry_types()
_DEVICE_TYPES = {name: _ALL_DEVICE_TYPES[name] for name in READ_DEVICE}
_HOST_TYPES = {name: _ALL_HOST_TYPES[name] for name in READ_HOST}
_SCALAR_TYPES = (int, float, str, type(None))
_FLOAT_MAX = 1.7976931348623157e308   # an int past it is no time (math.isfinite would raise on it)
# per field, the scalar types json.loads gives that it takes: one set lookup per field in the common case
_DEVICE_SCALARS, _HOST_SCALARS = ({name: frozenset(t for t in allowed if t in _SCALAR_TYPES)
                                   for name, allowed in types.items()} for types in (_DEVICE_TYPES, _HOST_TYPES))
# list fields and what their items must be
_ITEMS: dict[str, tuple[type, ...]] = {THROTTLE_REASONS: (str,)}


def _object_fits(data: Any, types: dict[str, tuple[type, ...]], scalars: dict[str, frozenset[type]]) -> bool:
    """A host or device object whose read fields have their types (the others are not read)."""
    if not isinstance(data, dict):
        return False
    for key, allowed in types.items():
        value = data.get(key)
        if value is None or value.__class__ in scalars[key]:
            continue
        if not protocol.fits(value, allowed):
            return False
        if isinstance(value, list) and not all(protocol.fits(v, _ITEMS.get(key, _SCALAR_TYPES)) for v in value):
            return False
    return True


def telemetry_sample_ok(data: Any) -> bool:
    """Is a decoded telemetry.jsonl line a sample the report and the plots can use as it is?

    ``t`` a finite number; ``host`` an object and ``devices`` a list of objects (or absent), their read fields of
    the types `tui.telemetry.sample` gives them; ``errors`` and ``sources`` lists of strings. Other fields (those
    of a later version included) are not read, and not checked.
    """
    if not isinstance(data, dict):
        return False
    t = data.get(T)
    if not protocol.fits(t, (int, float)) or (t.__class__ is int and abs(t) > _FLOAT_MAX) or not math.isfinite(t):
        return False
    host, devices = data.get(HOST), data.get(DEVICES)
    if host is not None and not _object_fits(host, _HOST_TYPES, _HOST_SCALARS):
        return False
    if devices is not None and not (isinstance(devices, list)
                                    and all(_object_fits(d, _DEVICE_TYPES, _DEVICE_SCALARS) for d in devices)):
        return False
    for key in (ERRORS, SOURCES):
        value = data.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return False
    return True
