"""--weights: transformers' own checkpoints, saved on the spot, load and decode greedily to transformers' tokens."""

import json

import pytest
import torch

from workloads.child.harness import WorkloadError
from workloads.models.decoding import EagerDecoder, Sampling, generate
from workloads.llm.checkpoint import load_dir
from workloads.llm.hf_config import read_config
from workloads.llm.model import Llama

transformers = pytest.importorskip("transformers", reason="the `test` extra installs transformers for this parity")

COMMON = dict(vocab_size=300, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=256)
LLAMA3_ROPE = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 64}


def _save(kind, directory, **save):
    torch.manual_seed(0)
    if kind == "llama":  # GQA, Llama-3 scaled rotary, untied head
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
            **COMMON, rope_theta=500000.0, rope_scaling=LLAMA3_ROPE, tie_word_embeddings=False))
    elif kind == "qwen2":  # GQA, q/k/v bias, tied head
        model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**COMMON, tie_word_embeddings=True))
    else:  # q/k norm, head_dim apart from hidden / heads
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**COMMON, head_dim=32))
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:  # norms and biases off their defaults, so one skipped would change the tokens
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(directory, **save)
    return model.eval()


@pytest.mark.parametrize("kind", ["llama", "qwen2", "qwen3"])
def test_greedy_tokens_equal_transformers_generate(tmp_path, kind):
    hf = _save(kind, tmp_path, max_shard_size="100KB")  # sharded, with its index
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

    _save("qwen2", tmp_path)
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
    _save("llama", tmp_path)
    config = read_config(tmp_path)
    assert (config.family, config.rope_scaling.factor, config.tie_word_embeddings, config.attention_bias) == (
        "llama", 8.0, False, False)
    data = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**data, "model_type": "mistral", "sliding_window": 4096}))
    with pytest.raises(WorkloadError, match="sliding_window 4096 .* is not implemented"):
        read_config(tmp_path)
