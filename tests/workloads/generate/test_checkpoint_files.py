"""Issue 37 items 12 and 13: a checkpoint directory someone else wrote. Its shard index and its links open only
regular files inside it (item 12); the stdlib safetensors reader refuses overlapping, gapped, short or misfit
offsets before it reads a byte of tensor data (item 13). Each is one line, exit 2."""

import json
import os
import signal
import struct
import subprocess
import sys
import textwrap

import pytest
import torch
from paths import REPO

from workloads.child.harness import WorkloadError
from workloads.generate import weights as gpt2_weights

INDEX = "model.safetensors.index.json"
SHARD = "model-00001-of-00001.safetensors"
LLAMA = {"model_type": "llama", "vocab_size": 64, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
         "num_attention_heads": 2, "num_key_value_heads": 2, "max_position_embeddings": 4096}


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


def llama_checkpoint(directory, shard=SHARD):
    """A tiny Llama checkpoint: config.json, one shard and the index naming it."""
    from workloads.llm.checkpoint import expected_shapes
    from workloads.llm.hf_config import read_config

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(LLAMA))
    shapes = expected_shapes(read_config(directory))
    write_safetensors(directory / shard, {name: torch.randn(shape) * 0.02 for name, shape in shapes.items()})
    write_index(directory, {name: shard for name in shapes})
    return directory


def write_index(directory, weight_map):
    (directory / INDEX).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))


def refused(directory) -> str:
    with pytest.raises(WorkloadError) as raised:
        gpt2_weights.weights_files(directory)
    message = raised.value.message
    assert raised.value.exit_code == 2 and "\n" not in message
    return message


# --- item 12: the files a checkpoint names ---------------------------------------------------------

@pytest.mark.parametrize("shard, said", [
    ("../../etc/passwd", "is outside {here} (it leads to "),
    ("/proc/self/environ", "is outside {here} (it leads to /proc/"),
    ("/dev/zero", "is outside {here} (it leads to /dev/zero)"),
    ("../other/" + SHARD, "is outside {here} (it leads to {other})"),  # another checkpoint: it loads and runs "ok"
    ("sub/../../other/" + SHARD, "is outside {here} (it leads to {other})"),
    ("", "is not a file name"),
    (7, "is not a file name"),
    (["a"], "is not a file name"),
])
def test_an_index_naming_a_file_outside_the_checkpoint_is_refused_by_name(tmp_path, shard, said):
    other = llama_checkpoint(tmp_path / "other") / SHARD
    here = tmp_path / "here"
    (here / "sub").mkdir(parents=True)
    write_index(here, {"model.embed_tokens.weight": shard})
    message = refused(here)
    shown = json.dumps(shard) if not isinstance(shard, list) else "<a JSON list>"
    assert message.startswith(f"{here / INDEX}: shard {shown} {said.format(here=here, other=other)}")


def test_a_link_out_of_the_checkpoint_is_refused_shard_or_single_file(tmp_path):
    other = llama_checkpoint(tmp_path / "other")
    here = tmp_path / "here"
    here.mkdir()
    (here / SHARD).symlink_to(other / SHARD)
    write_index(here, {"model.embed_tokens.weight": SHARD})
    assert refused(here) == f"{here / INDEX}: shard {json.dumps(SHARD)} is outside {here} (it leads to {other / SHARD})"
    (here / INDEX).unlink()
    (here / "model.safetensors").symlink_to("/etc/passwd")
    assert refused(here) == f"{here / 'model.safetensors'} is outside {here} (it leads to /etc/passwd)"
    (here / "model.safetensors").unlink()
    (here / INDEX).symlink_to(other / INDEX)  # the index itself, from elsewhere
    assert refused(here).startswith(f"{here / INDEX} is outside {here}")


def test_a_fifo_or_a_device_in_the_checkpoint_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / SHARD)
    write_index(tmp_path, {"model.embed_tokens.weight": SHARD})
    assert refused(tmp_path) == f"{tmp_path / INDEX}: shard {json.dumps(SHARD)} is not a regular file (a FIFO)"
    (tmp_path / SHARD).unlink()
    (tmp_path / SHARD).symlink_to("/dev/null")
    assert "is outside" in refused(tmp_path)
    (tmp_path / SHARD).unlink()
    assert refused(tmp_path) == f"{tmp_path / INDEX}: shard {json.dumps(SHARD)} is not in {tmp_path}"
    (tmp_path / INDEX).unlink()
    os.mkfifo(tmp_path / "model.safetensors")
    assert refused(tmp_path) == f"{tmp_path / 'model.safetensors'} is not a regular file (a FIFO)"


def test_links_inside_the_checkpoint_and_a_hub_cache_snapshot_still_load(tmp_path):
    from workloads.llm.checkpoint import load_dir
    from workloads.llm.hf_config import read_config
    from workloads.llm.model import Llama

    here = llama_checkpoint(tmp_path / "here", shard="real.safetensors")
    (here / SHARD).symlink_to("real.safetensors")  # a link that stays inside
    write_index(here, {name: SHARD for name in json.loads((here / INDEX).read_text())["weight_map"]})
    assert gpt2_weights.weights_files(here) == [(here / "real.safetensors").resolve()]
    # the Hugging Face hub cache: snapshots/<revision>/<file> -> ../../blobs/<hash>
    repo = tmp_path / "hub" / "models--tiny"
    snapshot, blobs = repo / "snapshots" / "abc123", repo / "blobs"
    snapshot.mkdir(parents=True)
    blobs.mkdir()
    for name in ("config.json", "real.safetensors", INDEX):
        (here / name).replace(blobs / name.replace(".", "-"))
        (snapshot / (SHARD if name == "real.safetensors" else name)).symlink_to(f"../../blobs/{name.replace('.', '-')}")
    load_dir(Llama(read_config(snapshot)), snapshot)


def _run_ends(argv, timeout):
    """The real entry point in its own session, so a hung grandchild (a FIFO read) is killed with it."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            cwd=REPO, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{argv[3:5]} still running after {timeout} s")
    return proc.returncode, out, err


@pytest.mark.parametrize("workload", ["llm", "finetune", "generate"])
def test_cardbench_run_with_a_fifo_shard_ends_in_one_line_before_any_run(tmp_path, workload):
    weights = llama_checkpoint(tmp_path / "weights")
    if workload == "generate":
        (weights / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 1, "n_head": 2,
                                                         "n_embd": 16, "n_positions": 1024, "vocab_size": 64}))
    (weights / SHARD).unlink()
    os.mkfifo(weights / SHARD)
    code, out, err = _run_ends([sys.executable, "-m", "tui.cli", "run", workload, "--device", "cpu", "--weights",
                                str(weights), "--runs-dir", str(tmp_path / "runs")], timeout=60)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"shard {json.dumps(SHARD)} is not a regular file (a FIFO)" in err
    assert not (tmp_path / "runs").exists()


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
        gpt2_weights._read_safetensors_plain(path)
    assert str(raised.value).startswith(said)


def test_the_plain_reader_refuses_a_header_past_the_file(tmp_path):
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", 1 << 60) + b"{}")
    with pytest.raises(ValueError, match=r"^a header of 1,152,921,504,606,846,976 bytes in a file of 10$"):
        gpt2_weights._read_safetensors_plain(path)
    path.write_bytes(b"\x01\x00")
    with pytest.raises(ValueError, match=r"^2 bytes: too short for a safetensors header$"):
        gpt2_weights._read_safetensors_plain(path)


def test_the_plain_reader_still_reads_every_dtype_and_an_empty_tensor(tmp_path):
    tensors = {"f16": torch.randn(3, dtype=torch.float16), "i8": torch.tensor([1, -2, 3], dtype=torch.int8),
               "bf16": torch.randn(2, 3).to(torch.bfloat16), "empty": torch.empty(0, 4), "f32": torch.randn(5)}
    from safetensors.torch import save_file  # the package's layout, read back without it

    save_file(tensors, tmp_path / "model.safetensors", metadata={"format": "pt"})
    read = gpt2_weights._read_safetensors_plain(tmp_path / "model.safetensors")
    assert read.keys() == tensors.keys() and all(torch.equal(read[k], tensors[k]) for k in tensors)


ALIASED = """
import json, resource, struct, sys
sys.modules["safetensors"] = None  # the stdlib reader, as where the package is not installed
from pathlib import Path
import torch
from workloads.child.harness import WorkloadError
from workloads.generate.weights import read_state_dict

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
