"""Issue 37 item 13: the stdlib safetensors reader refuses overlapping, gapped, short or misfit offsets before it
reads a byte of tensor data, each in one line."""

import json
import struct
import subprocess
import sys
import textwrap

import pytest
import torch
from paths import REPO

from workloads.models.state_dict import _read_safetensors_plain


# --- item 13: the stdlib reader checks the offsets before it reads -----------------------------------

def _raw(path, header, data_len):
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + bytes(data_len))


def _f32(start, end, shape):
    return {"dtype": "F32", "shape": shape, "data_offsets": [start, end]}


@pytest.mark.parametrize("header, data_len, said", [
    ({"a": _f32(0, 16, [4]), "b": _f32(0, 16, [4])}, 16, "tensor 'b' at bytes [0, 16) overlaps or leaves a gap"),
    ({"a": _f32(0, 16, [4]), "b": _f32(8, 24, [4])}, 24, "tensor 'b' at bytes [8, 24) overlaps or leaves a gap"),
    ({"a": _f32(0, 16, [4]), "b": _f32(20, 36, [4])}, 36, "tensor 'b' at bytes [20, 36) overlaps or leaves a gap"),
    ({"a": _f32(4, 20, [4])}, 20, "tensor 'a' at bytes [4, 20) overlaps or leaves a gap"),
    ({"a": _f32(0, 16, [4])}, 8, "the tensors end at byte 16 of the data, which holds 8"),
    ({"a": _f32(0, 16, [4])}, 24, "the tensors end at byte 16 of the data, which holds 24"),
    ({"a": _f32(0, 16, [5])}, 16, "tensor 'a' has 16 bytes for 5 F32 values (20 bytes)"),
    ({"a": _f32(16, 0, [0])}, 16, "tensor 'a' has data_offsets [16, 0], not two byte offsets"),
    ({"a": _f32(-4, 12, [4])}, 16, "tensor 'a' has data_offsets [-4, 12], not two byte offsets"),
    ({"a": _f32(0, 16, [2, -2])}, 16, "tensor 'a' has shape [2, -2], not a list of sizes"),
    ({"a": {"dtype": "F32", "shape": [4]}}, 16, "tensor 'a' has data_offsets None, not two byte offsets"),
    ({"a": {**_f32(0, 16, [4]), "dtype": "F99"}}, 16, "tensor 'a' has unsupported dtype 'F99'"),
    ([1, 2], 0, "the header is not a JSON object"),
])
def test_the_plain_reader_refuses_offsets_the_package_refuses(tmp_path, header, data_len, said):
    path = tmp_path / "model.safetensors"
    _raw(path, header, data_len)
    with pytest.raises(ValueError) as raised:
        _read_safetensors_plain(path)
    assert str(raised.value).startswith(said)


def test_the_plain_reader_refuses_a_header_past_the_file(tmp_path):
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", 1 << 60) + b"{}")
    with pytest.raises(ValueError, match=r"^a header of 1,152,921,504,606,846,976 bytes in a file of 10$"):
        _read_safetensors_plain(path)
    path.write_bytes(b"\x01\x00")
    with pytest.raises(ValueError, match=r"^2 bytes: too short for a safetensors header$"):
        _read_safetensors_plain(path)


def test_the_plain_reader_still_reads_every_dtype_and_an_empty_tensor(tmp_path):
    tensors = {"f16": torch.randn(3, dtype=torch.float16), "i8": torch.tensor([1, -2, 3], dtype=torch.int8),
               "bf16": torch.randn(2, 3).to(torch.bfloat16), "empty": torch.empty(0, 4), "f32": torch.randn(5)}
    from safetensors.torch import save_file  # the package's layout, read back without it

    save_file(tensors, tmp_path / "model.safetensors", metadata={"format": "pt"})
    read = _read_safetensors_plain(tmp_path / "model.safetensors")
    assert read.keys() == tensors.keys() and all(torch.equal(read[k], tensors[k]) for k in tensors)


ALIASED = """
import json, resource, struct, sys
sys.modules["safetensors"] = None  # the stdlib reader, as where the package is not installed
from pathlib import Path
import torch
from workloads.child.harness import WorkloadError
from workloads.models.state_dict import read_state_dict

def status(key):
    return int(next(line for line in open("/proc/self/status") if line.startswith(key)).split()[1]) * 1024

directory = Path(sys.argv[1])
size = 10 << 20
header = {f"t{i}": {"dtype": "F32", "shape": [size // 4], "data_offsets": [0, size]} for i in range(200)}
text = json.dumps(header).encode()
with open(directory / "model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text)
    f.truncate(8 + len(text) + size)
# room for the file's 10 MB a few times over; the 200 aliased copies (2 GB) cannot fit
limit = status("VmSize") + (256 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
before = status("VmRSS")
try:
    read_state_dict(directory)
    print("read")
except WorkloadError as exc:
    print(exc.message)
print(status("VmHWM") - before)
"""


def test_two_hundred_names_over_the_same_bytes_are_refused_before_reading(tmp_path):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(ALIASED), str(tmp_path)], capture_output=True,
                         text=True, timeout=60, cwd=REPO)
    assert out.returncode == 0, out.stderr
    said, grown = out.stdout.splitlines()
    assert said == f"cannot read {tmp_path / 'model.safetensors'}: tensor 't1' at bytes [0, 10485760) overlaps or " \
                   "leaves a gap (each must start where the one before ends)"
    assert int(grown) < 64 << 20  # not a byte of tensor data was read
