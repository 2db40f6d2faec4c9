"""Is a decoded telemetry.jsonl line a sample the report and the plots can use? (`telemetry_sample_ok`). UI-free.

The fields and their types are `tui.telemetry.sample`'s; the run record (`tui.store.record`) and the follower
(`tui.store.follow`) skip and count a line that fails.
"""

from __future__ import annotations

import math
from typing import Any

from workloads import protocol


def _telemetry_types() -> tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]:
    from tui.telemetry.sample import DeviceSample, HostSample

    return protocol.field_types(DeviceSample), protocol.field_types(HostSample)


_DEVICE_TYPES, _HOST_TYPES = _telemetry_types()
_SCALAR_TYPES = (int, float, str, type(None))
_FLOAT_MAX = 1.7976931348623157e308   # an int past it is no time (math.isfinite would raise on it)
# per field, the scalar types json.loads gives that it takes: one set lookup per field in the common case
_DEVICE_SCALARS, _HOST_SCALARS = ({name: frozenset(t for t in allowed if t in _SCALAR_TYPES)
                                   for name, allowed in types.items()} for types in (_DEVICE_TYPES, _HOST_TYPES))
# list fields and what their items must be
_ITEMS: dict[str, tuple[type, ...]] = {"throttle_reasons": (str,), "per_core_pct": (int, float, type(None))}


def _object_fits(data: Any, types: dict[str, tuple[type, ...]], scalars: dict[str, frozenset[type]],
                 depth: int) -> bool:
    """A host or device object: known fields of their types, unknown ones not nested too deep."""
    if not isinstance(data, dict):
        return False
    for key, value in data.items():
        if value.__class__ in scalars.get(key, ()):
            continue
        allowed = types.get(key)
        if allowed is None:  # a field this version does not know: anything not too deep
            if isinstance(value, (dict, list)) and protocol.too_deep(value, protocol.MAX_DEPTH - depth):
                return False
            continue
        if value is None:
            continue
        if key == "processes":
            # not checked: no figure of the report or the plots comes from it, and checking a day's process lists
            # was half the time of reading its samples (`tui.store.telemetry` does not decode it either); its one
            # reader from disk, the screenshot's device table (`tui.screenshot.last_sample`), falls back to the
            # columns' last reading where `Sample.from_dict` refuses it
            continue
        if not protocol.fits(value, allowed):
            return False
        if isinstance(value, list) and not all(protocol.fits(v, _ITEMS.get(key, _SCALAR_TYPES)) for v in value):
            return False
    return True


def telemetry_sample_ok(data: Any) -> bool:
    """Is a decoded telemetry.jsonl line a sample the report and the plots can use as it is?

    ``t`` a finite number; ``host`` an object and ``devices`` a list of objects (or
    absent), with the fields `tui.telemetry.sample` knows of the types it gives
    them; ``errors`` and ``sources`` lists of strings; fields this version does not
    know nested no deeper than protocol.MAX_DEPTH in all.
    """
    if not isinstance(data, dict):
        return False
    t = data.get("t")
    if not protocol.fits(t, (int, float)) or (t.__class__ is int and abs(t) > _FLOAT_MAX) or not math.isfinite(t):
        return False
    for key, value in data.items():
        if key == "t" or value is None:
            continue
        if key == "host":
            if not _object_fits(value, _HOST_TYPES, _HOST_SCALARS, 2):
                return False
        elif key == "devices":
            if not (isinstance(value, list)
                    and all(_object_fits(d, _DEVICE_TYPES, _DEVICE_SCALARS, 3) for d in value)):
                return False
        elif key in ("errors", "sources"):
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                return False
        elif isinstance(value, (dict, list)) and protocol.too_deep(value, protocol.MAX_DEPTH - 1):
            return False
    return True
