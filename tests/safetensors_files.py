"""A safetensors file written by hand, so a test needs neither the package nor a real checkpoint."""

import json
import struct


def write_safetensors(path, tensors):
    """The format by hand: u64 header length, JSON header, raw little-endian data (as safetensors writes it)."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
