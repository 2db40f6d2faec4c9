"""--weights: transformers' own checkpoints, saved on the spot, load and decode greedily to transformers' tokens."""

import json

import pytest
import torch
from llama_checkpoints import save_transformers

from workloads.child.harness import WorkloadError
from workloads.models.decoding import EagerDecoder, Sampling, generate
from workloads.models.llama.checkpoint import load_dir
from workloads.models.llama.hf_config import read_config
from workloads.models.llama.model import Llama

transformers = pytest.importorskip("transformers", reason="the `test` extra installs transformers for this parity")

@pytest.mark.parametrize("kind", ["llama", "qwen2", "qwen3"])
def test_greedy_tokens_equal_transformers_generate(tmp_path, kind):
    hf = save_transformers(kind, tmp_path, max_shard_size="100KB")  # sharded, with its index
    assert (tmp_path / "model.safetensors.index.json").is_file()
    model = Llama(read_config(tmp_path))
    load_dir(model, tmp_path)
    model.eval()
    prompt = torch.randint(0, 300, (2, 7), generator=torch.Generator().manual_seed(1))
    want = hf.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=24, min_new_tokens=24,
                       do_sample=False)[:, 7:]
    cache = model.new_cache(2, 31)
    got = generate(model, cache, EagerDecoder(model, cache), prompt, 24, Sampling(), torch.device("cpu")).tokens
    assert torch.equal(got, want)


def test_a_missing_or_misshapen_tensor_is_one_line_naming_it(tmp_path):
    from safetensors.torch import load_file, save_file

    save_transformers("qwen2", tmp_path)
    path = tmp_path / "model.safetensors"
    state = load_file(path)
    model = Llama(read_config(tmp_path))
    bad = dict(state)
    bad["model.layers.1.self_attn.k_proj.weight"] = torch.zeros(32, 63)
    save_file(bad, path)
    with pytest.raises(WorkloadError) as raised:
        load_dir(model, tmp_path)
    assert raised.value.message == (f"{tmp_path}: tensor 'model.layers.1.self_attn.k_proj.weight' has shape (32, 63), "
                                    "expected (32, 64)")
    del bad["model.layers.1.self_attn.k_proj.weight"]
    save_file(bad, path)
    with pytest.raises(WorkloadError, match=r"missing tensor 'model.layers.1.self_attn.k_proj.weight' \(shape \(32, 64\)\)"):
        load_dir(model, tmp_path)
    save_file({**state, "model.layers.9.mlp.up_proj.weight": torch.zeros(2)}, path)
    with pytest.raises(WorkloadError, match="unexpected tensor 'model.layers.9.mlp.up_proj.weight'"):
        load_dir(model, tmp_path)


def test_config_reads_every_family_field(tmp_path):
    save_transformers("llama", tmp_path)
    config = read_config(tmp_path)
    assert (config.family, config.rope_scaling.factor, config.tie_word_embeddings, config.attention_bias) == (
        "llama", 8.0, False, False)
    data = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**data, "model_type": "mistral", "sliding_window": 4096}))
    with pytest.raises(WorkloadError, match="sliding_window 4096 .* is not implemented"):
        read_config(tmp_path)
