"""Issue 37 items 8 and 15, the model half: the fit estimate counts the module objects a shape builds, and a
config.json whose numbers are not numbers, not finite, out of range or a meaningless rotary is refused in one line."""

import os

import pytest
from llama_checkpoints import write_config

from workloads.child.harness import WorkloadError
from workloads.models.llama import fit
from workloads.models.llama.hf_config import read_config
from workloads.models.llama.presets import LlamaConfig


def test_the_fit_counts_the_modules_not_only_the_tensors():
    deep = LlamaConfig(vocab_size=2, hidden_size=2, intermediate_size=2, num_hidden_layers=10**6,
                       num_attention_heads=1, num_key_value_heads=1)
    # its tensors are 128 MB; each layer's nine modules and seven parameters are ~25 KB of host objects
    assert fit.module_bytes(deep) > 20 * 2**30
    assert fit.inference(deep, 1, 2, 1, 4).total > fit.module_bytes(deep)
    assert fit.training(deep, 1, 2, 4).modules == fit.module_bytes(deep)


LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 64}


@pytest.mark.parametrize("fields, said", [
    ({"rope_theta": "abc"}, 'rope_theta is "abc", not a number above 0'),
    ({"rope_theta": [1, 2]}, "rope_theta is [1, 2], not a number above 0"),
    ({"rope_theta": 10**400}, "rope_theta is 1000000000"),
    ({"rope_theta": float("inf")}, "rope_theta is Infinity, not a number above 0"),
    ({"rope_theta": 0}, "rope_theta is 0, not a number above 0"),
    ({"rope_theta": -1.5}, "rope_theta is -1.5, not a number above 0"),
    ({"rope_theta": True}, "rope_theta is true, not a number above 0"),
    ({"rope_parameters": {"rope_type": "default", "rope_theta": "x"}}, 'rope_theta is "x"'),
    ({"rms_norm_eps": "x"}, 'rms_norm_eps is "x", not a number above 0 and at most 1'),
    ({"rms_norm_eps": 0}, "rms_norm_eps is 0, not a number above 0 and at most 1"),
    ({"head_dim": -5}, "head_dim is -5, not an even whole number of 2 or more"),
    ({"head_dim": 7}, "head_dim is 7, not an even whole number of 2 or more"),
    ({"head_dim": 4.0}, "head_dim is 4.0, not an even whole number of 2 or more"),
    ({"hidden_size": 3}, "hidden_size 3 / num_attention_heads 4 is a head of 0"),
    ({"num_key_value_heads": 3}, "num_attention_heads 4 is not a multiple of num_key_value_heads 3"),
    ({"rope_scaling": {**LLAMA3, "high_freq_factor": 1.0}},
     "llama3 rope scaling: high_freq_factor 1.0 is not above low_freq_factor 1.0"),
    ({"rope_scaling": {**LLAMA3, "factor": 10**400}}, "llama3 rope scaling: factor is 1000000000"),
    ({"rope_scaling": {**LLAMA3, "factor": "big"}}, 'llama3 rope scaling: factor is "big", not a number above 0'),
    ({"rope_scaling": {**LLAMA3, "original_max_position_embeddings": 0}},
     "llama3 rope scaling: original_max_position_embeddings is 0, not a whole number of 1 or more"),
    ({"rope_scaling": {k: v for k, v in LLAMA3.items() if k != "factor"}}, "llama3 rope scaling lacks factor"),
    ({"tie_word_embeddings": "false"}, 'tie_word_embeddings is "false", not true or false'),
])
def test_a_config_value_that_is_not_a_meaningful_model_is_one_line(tmp_path, fields, said):
    write_config(tmp_path, **fields)
    with pytest.raises(WorkloadError) as refused:
        read_config(tmp_path)
    message = refused.value.message
    assert said in message and "\n" not in message and len(message) < 300, message


def test_a_config_that_is_not_a_small_regular_file_is_refused_unread(tmp_path):
    (tmp_path / "config.json").write_text(" " * (fit_size := 5 * 2**20) + "{}")
    with pytest.raises(WorkloadError, match=f"is {fit_size + 2:,} bytes"):
        read_config(tmp_path)
    (tmp_path / "config.json").unlink()
    os.mkfifo(tmp_path / "config.json")  # opened, a FIFO would hang the run with no writer
    with pytest.raises(WorkloadError, match="config.json is not a regular file"):
        read_config(tmp_path)


def test_a_good_config_still_reads(tmp_path):
    config = read_config(write_config(tmp_path, rope_theta=500000, rms_norm_eps=1e-5, head_dim=8,
                                 rope_scaling=LLAMA3, tie_word_embeddings=True))
    assert (config.rope_theta, config.rms_norm_eps, config.head_dim, config.rope_scaling.high_freq_factor,
            config.tie_word_embeddings) == (500000.0, 1e-5, 8, 4.0, True)
    assert read_config(write_config(tmp_path, head_dim=4)).head_dim_override is None  # hidden / heads already
