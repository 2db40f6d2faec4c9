"""How a telemetry.jsonl line becomes what `tui.store.telemetry`'s columns take. UI-free.

The fast way: msgspec decodes and type-checks a line's read fields (`READ_DEVICE`, `READ_HOST` of
workloads.rundir.sample_fields) in C, the numbers straight to what a column holds, the other fields passed over
unread. A line it will not take as it is (a NaN, a null reading, a wrong type) goes the slow way: json, then
`tui.store.samples.telemetry_sample_ok`, the one definition of a usable sample, then the kept numbers normalised.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Annotated, Any, Callable, Iterable, Optional, Union

from tui.store.samples import telemetry_sample_ok
from workloads.rundir.sample_fields import (DEVICES, ERRORS, FLOAT_FIELDS, HOST, INT_FIELDS, SOURCES, T,
                                            THROTTLE_REASONS)

NAN = math.nan
MISSING = -(2 ** 63)   # an integer column's "no reading"

_Num = Union[int, float, None]


@functools.cache
def codec() -> tuple[Callable[[bytes], Any], tuple[type, ...], Callable[[Any], Any]]:
    """(decode a line, its errors, convert a dict to the slow way's struct): made on the first read, so that the
    workbench's first frame does not wait for msgspec and the types (~60 ms)."""
    import msgspec

    sample, lenient = _structs(msgspec)
    decoder = msgspec.json.Decoder(sample)
    # RecursionError: a value nested past msgspec's depth (a torn or hostile line), as json's
    return (decoder.decode, (msgspec.DecodeError, msgspec.ValidationError, RecursionError),
            lambda data: msgspec.convert(data, lenient))


def _structs(msgspec: Any) -> tuple[type, type]:
    """msgspec types of the read fields of a sample (`tui.store.samples`), as telemetry_sample_ok checks them: a
    number field takes an int or a float (never a bool), a text field a string, each may be null; the other fields
    are passed over unread, as that check passes them over.

    The readings the columns keep decode straight to what a column holds (a float, or an int for the byte and
    count fields; absent: NaN or MISSING), so a column is extended without a Python step per reading; a line
    where one is null (cardbench leaves a None out) or of the other kind takes the slow way, which normalises."""
    from tui.store.samples import _DEVICE_TYPES, _HOST_TYPES

    def field_type(name: str, allowed: tuple[type, ...]) -> tuple[Any, Any]:
        if name in FLOAT_FIELDS:
            return float, NAN
        if name in INT_FIELDS:   # within an array("q"): past it takes the slow way (MISSING there)
            return Annotated[int, msgspec.Meta(gt=MISSING, le=-MISSING - 1)], MISSING
        if name == THROTTLE_REASONS:
            return Optional[list[str]], None
        if str in allowed:
            return Optional[str], None
        return _Num, None

    def struct(name: str, types: dict[str, tuple[type, ...]], kept: tuple[str, ...]) -> tuple[type, type]:
        strict = msgspec.defstruct(name, [(key, *field_type(key, allowed)) for key, allowed in types.items()],
                                   gc=False)
        # the slow way's: what telemetry_sample_ok passed, the kept readings normalised first
        lenient = msgspec.defstruct(name, [(key, *_KEPT[key]) if key in kept else (key, Any, None) for key in types],
                                    gc=False)
        return strict, lenient

    (device, lenient_device), (host, lenient_host) = (struct("Device", _DEVICE_TYPES, FLOAT_FIELDS + INT_FIELDS),
                                                      struct("Host", _HOST_TYPES, ()))
    # t a float: an integer past a float's range is refused here (the slow way refuses it too)
    sample = msgspec.defstruct("Sample", [(T, float), (DEVICES, Optional[list[device]], None),
                                          (HOST, Optional[host], None), (ERRORS, Optional[list[str]], None),
                                          (SOURCES, Optional[list[str]], None)], gc=False)
    lenient = msgspec.defstruct("Sample", [(T, float), (DEVICES, Optional[list[lenient_device]], None),
                                           (HOST, Optional[lenient_host], None)], gc=False)
    return sample, lenient


_KEPT = {**{f: (float, NAN) for f in FLOAT_FIELDS}, **{f: (int, MISSING) for f in INT_FIELDS}}


def float_reading(v: Any) -> float:
    """A reading as a float column holds it: NaN for none (or an infinity, which is no reading either)."""
    if v.__class__ is int:
        v = float(v) if abs(v) < 2 ** 1023 else NAN
    return v if v.__class__ is float and v - v == 0.0 else NAN


def slow_way(line: bytes) -> Any:
    """A line msgspec would not take, the slow way: the sample dict when it is usable, else None."""
    try:
        data = json.loads(line.decode("utf-8", errors="replace"))   # a bad byte replaced, as read_text does
    except (ValueError, RecursionError):
        return None
    return data if telemetry_sample_ok(data) else None


def columnar(data: dict[str, Any]) -> Any:
    """A usable sample dict as the columns take it: the kept numbers as a column holds them."""
    devices = data.get(DEVICES)
    if isinstance(devices, list):
        devices = [{**d, **{f: float_reading(d.get(f)) for f in FLOAT_FIELDS}, **{f: int_reading(d.get(f)) for f in INT_FIELDS}}
                   for d in devices]
    host = data.get(HOST)
    return codec()[2]({T: data[T], DEVICES: devices, HOST: host if isinstance(host, dict) else None})


def int_reading(v: Any) -> int:
    if v.__class__ is int:
        return v if -MISSING > v > MISSING else MISSING
    if v.__class__ is float and math.isfinite(v) and abs(v) < 2 ** 63:
        return int(v)
    return MISSING


def lines_of(data: bytes) -> Iterable[Any]:
    """The lines of a file's bytes as views, not copies (a day's 626 MB copied line by line was a fifth of
    decoding it); where a line ends at a CR too, as ``bytes.splitlines`` splits them."""
    if b"\r" in data:
        yield from data.splitlines()
        return
    view, find, start, end = memoryview(data), data.find, 0, len(data)
    while start < end:
        stop = find(b"\n", start)
        if stop < 0:
            stop = end
        yield view[start:stop]
        start = stop + 1
