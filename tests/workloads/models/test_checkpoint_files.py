"""Issue 37 item 12: a checkpoint directory someone else wrote. Its shard index and its links open only regular files
inside it, each refusal one line, exit 2 (item 13, the safetensors reader: test_state_dict.py)."""

import json
import os
import signal
import subprocess
import sys

import pytest
import torch
from paths import REPO
from safetensors_files import write_safetensors

from workloads.child.harness import WorkloadError
from workloads.models.checkpoint_files import weights_files

INDEX = "model.safetensors.index.json"
SHARD = "model-00001-of-00001.safetensors"
LLAMA = {"model_type": "llama", "vocab_size": 64, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
         "num_attention_heads": 2, "num_key_value_heads": 2, "max_position_embeddings": 4096}


def llama_checkpoint(directory, shard=SHARD):
    """A tiny Llama checkpoint: config.json, one shard and the index naming it."""
    from workloads.models.llama.checkpoint import expected_shapes
    from workloads.models.llama.hf_config import read_config

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
        weights_files(directory)
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
    from workloads.models.llama.checkpoint import load_dir
    from workloads.models.llama.hf_config import read_config
    from workloads.models.llama.model import Llama

    here = llama_checkpoint(tmp_path / "here", shard="real.safetensors")
    (here / SHARD).symlink_to("real.safetensors")  # a link that stays inside
    write_index(here, {name: SHARD for name in json.loads((here / INDEX).read_text())["weight_map"]})
    assert weights_files(here) == [(here / "real.safetensors").resolve()]
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
