"""A checkpoint directory's tensors read into one state dict, for any model family.

The files are the ones :func:`workloads.models.checkpoint_files.checkpoint_files` allows (``model.safetensors``,
a sharded index of them, or ``pytorch_model.bin``). ``safetensors`` files are read with the ``safetensors``
package when it is installed, otherwise with the small reader below (the format is a JSON header and raw
little-endian tensors), so no dependency is needed for real weights. ``torch.load`` reads tensors and plain
containers only (``weights_only``): a pickle never runs its code here.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
from pathlib import Path
from typing import Any

import torch

from workloads.child.harness import WorkloadError
from workloads.errors import first_line
from workloads.models.checkpoint_files import checkpoint_files
from workloads.safe_text import file_name, one_line

_MAX_HEADER_BYTES = 100_000_000   # the safetensors package's cap on a header

_SAFETENSORS_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
    "BOOL": torch.bool,
}


def read_safetensors(path: Path) -> dict[str, torch.Tensor]:
    """Tensors of a safetensors file, with the package when installed, else with this reader."""
    try:
        from safetensors.torch import load_file
    except ImportError:
        return _read_safetensors_plain(path)
    return load_file(str(path), device="cpu")


def _read_safetensors_plain(path: Path) -> dict[str, torch.Tensor]:
    """The safetensors format without the package. Its checks come first, as the package's do, so that a byte of
    tensor data is read once at most: offsets that overlap let 200 names copy the same 10 MB 200 times."""
    out: dict[str, torch.Tensor] = {}
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 8:
            raise ValueError(f"{size} bytes: too short for a safetensors header")
        (header_len,) = struct.unpack("<Q", f.read(8))
        if header_len > min(size - 8, _MAX_HEADER_BYTES):
            raise ValueError(f"a header of {header_len:,} bytes in a file of {size:,}")
        header = json.loads(f.read(header_len))
        for name, dtype, shape, start, end in _layout(header, size - 8 - header_len):
            f.seek(8 + header_len + start)
            data = bytearray(f.read(end - start))
            if len(data) != end - start:
                raise ValueError(f"the file ended inside tensor {_name(name)}")  # it shrank as it was read
            tensor = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            out[name] = tensor.reshape(shape)
    return out


def _layout(header: Any, data_len: int) -> list[tuple[str, torch.dtype, list[int], int, int]]:
    """Each tensor's (name, dtype, shape, start, end), checked as the safetensors package checks them: the
    tensors tile the data exactly (sorted by offset, each starts where the one before ends, the last ends at
    the file's end) and each holds dtype x shape bytes. ValueError names the first that does not."""
    if not isinstance(header, dict):
        raise ValueError("the header is not a JSON object")
    entries = sorted((_entry(name, info) for name, info in header.items() if name != "__metadata__"),
                     key=lambda e: (e[3], e[4]))
    at = 0
    for name, _, _, start, end in entries:
        if start != at:
            raise ValueError(f"tensor {_name(name)} at bytes [{start}, {end}) overlaps or leaves a gap "
                             "(each must start where the one before ends)")
        at = end
    if at != data_len:
        raise ValueError(f"the tensors end at byte {at} of the data, which holds {data_len}")
    return entries


def _entry(name: str, info: Any) -> tuple[str, torch.dtype, list[int], int, int]:
    """One header entry, its types and its size checked (safetensors' own rules: integers, never floats)."""
    if not isinstance(info, dict):
        raise ValueError(f"tensor {_name(name)} is not a JSON object")
    code = info.get("dtype")
    dtype = _SAFETENSORS_DTYPES.get(code) if isinstance(code, str) else None
    if dtype is None:
        raise ValueError(f"tensor {_name(name)} has unsupported dtype {one_line(repr(code), limit=40)}")
    shape, offsets = info.get("shape"), info.get("data_offsets")
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"tensor {_name(name)} has shape {one_line(shape, limit=60)}, not a list of sizes")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(n) is int for n in offsets)
            and 0 <= offsets[0] <= offsets[1]):
        raise ValueError(f"tensor {_name(name)} has data_offsets {one_line(offsets, limit=60)}, not two byte offsets")
    start, end = offsets
    count = math.prod(shape)
    if count * dtype.itemsize != end - start:
        raise ValueError(f"tensor {_name(name)} has {end - start} bytes for {count} {code} values "
                         f"({count * dtype.itemsize} bytes)")
    return name, dtype, shape, start, end


def _name(name: str) -> str:
    return one_line(repr(name), limit=80)


def read_state_dict(directory: Path) -> dict[str, torch.Tensor]:
    state: dict[str, torch.Tensor] = {}
    for path, real in checkpoint_files(directory):
        try:
            if path.suffix == ".safetensors":
                part = read_safetensors(real)
            else:
                part = torch.load(real, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unreadable checkpoint is the same user error
            raise WorkloadError(f"cannot read {file_name(path)}: {_why_unreadable(exc)}",
                                hint="the file is damaged or not a PyTorch/safetensors checkpoint") from None
        if not isinstance(part, dict):
            raise WorkloadError(f"{file_name(path)} does not hold a state dict")
        state.update(part)
    return state


def _why_unreadable(exc: BaseException) -> str:
    """torch.load's failure in a few words; never its advice to load with weights_only=False (that runs the
    file's code), which even its first line opens with."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # it carries terminal colours too
    if "weights_only" not in text and "Weights only" not in text:
        return first_line(exc).split(". ")[0].rstrip(".")[:200]  # the first sentence: what failed, not why
    found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
    return f"it holds {found.group(1)}, not tensors alone" if found else "it is not tensors and plain containers"
