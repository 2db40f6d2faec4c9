"""The GPT-2 model, its KV cache, the decoding loop and the weight loader, on the CPU, tiny shapes."""

import json
import time

import pytest
import torch
from safetensors_files import write_safetensors
from tiny_gpt2 import TINY, config_json, hf_state_dict, tiny_model, write_config

from workloads.child.harness import WorkloadError
from workloads.models import checkpoint_files, matvec, state_dict
from workloads.models.decoding import EagerDecoder, Sampling, fastest_split, generate
from workloads.models.gpt2 import config as gpt2_config
from workloads.models.gpt2 import fit as gpt2_fit
from workloads.models.gpt2 import weights as gpt2_weights
from workloads.models.gpt2.config import GPT2Config
from workloads.models.gpt2.model import GPT2, KVCache, kv_bytes_per_step, parameter_count, weight_bytes_per_step

CPU = torch.device("cpu")


def full_logits(model, ids):
    """Logits of every position from one pass over the whole sequence, in a fresh cache."""
    cache = KVCache(model.config, ids.shape[0], ids.shape[1], torch.float32, CPU)
    with torch.inference_mode():
        return model(ids, cache, 0)


# --- the model and its KV cache ------------------------------------------------------------------

def test_kv_cache_decode_gives_the_logits_of_a_full_forward_pass():
    model = tiny_model()
    ids = torch.randint(0, TINY.vocab_size, (2, 12), generator=torch.Generator().manual_seed(1))
    expected = full_logits(model, ids)
    prompt = 5
    cache = KVCache(TINY, 2, 12, torch.float32, CPU)
    with torch.inference_mode():
        got = [model(ids[:, :prompt], cache, 0)]
        for pos in range(prompt, 12):
            got.append(model(ids[:, pos:pos + 1], cache, pos))
    torch.testing.assert_close(torch.cat(got, dim=1), expected, rtol=1e-4, atol=1e-5)
    assert not torch.allclose(expected[:, 5], expected[:, 6])  # the positions really differ


@pytest.mark.parametrize("split", [2, 4])
def test_products_split_across_cores_give_the_same_logits(split, monkeypatch):
    monkeypatch.setattr(matvec, "SPLIT_MIN_WEIGHTS", 0)  # the tiny shape's matrices are below the threshold
    model = tiny_model(seed=8)
    ids = torch.randint(0, TINY.vocab_size, (3, 9), generator=torch.Generator().manual_seed(4))
    expected = full_logits(model, ids)
    model.split_products(split)
    assert all(m.split == split for m in model.modules() if hasattr(m, "split"))
    cache = KVCache(TINY, 3, 9, torch.float32, CPU)
    with torch.inference_mode():
        got = [model(ids[:, :2], cache, 0)] + [model(ids[:, p:p + 1], cache, p) for p in range(2, 9)]
    torch.testing.assert_close(torch.cat(got, dim=1), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("slow, chosen", [("bmm", 1), ("addmm", 2)])
def test_the_faster_product_split_is_kept(slow, chosen, monkeypatch):
    monkeypatch.setattr(matvec, "SPLIT_MIN_WEIGHTS", 0)
    real = getattr(torch, slow)

    def delayed(*args, **kwargs):  # as if that way of multiplying waited for a busy core
        # ~8 such products a step: 320 ms a step against the other way's ~0.4 ms. 10 ms was not enough: with a
        # pytest-xdist neighbour on the other core at load 16, the split way's cross-core waits passed 80 ms a step
        time.sleep(0.04)
        return real(*args, **kwargs)

    monkeypatch.setattr(torch, slow, delayed)
    model = tiny_model()
    model.split_products(2)
    cache = KVCache(TINY, 1, 3 + 5, torch.float32, CPU)
    tried = fastest_split(model, cache, EagerDecoder(model, cache), torch.zeros(1, 3, dtype=torch.long), 4,
                          Sampling(), CPU)
    assert tried.keys() == {1, 2} and model.split == chosen
    assert all(m.split == chosen for m in model.modules() if hasattr(m, "split"))


def test_static_decode_and_chunked_prefill_match_the_full_pass():
    model = tiny_model(seed=3)
    ids = torch.randint(0, TINY.vocab_size, (1, 10), generator=torch.Generator().manual_seed(2))
    expected = full_logits(model, ids)
    cache = KVCache(TINY, 1, 16, torch.float32, CPU)  # longer than the sequence: the mask must hide the rest
    with torch.inference_mode():
        first = model(ids[:, :3], cache, 0)
        chunk = model(ids[:, 3:6], cache, 3)  # a prefill that starts at a non-zero position
        steps = [model.forward_static(ids[:, p:p + 1], cache, torch.tensor([p])) for p in range(6, 10)]
    torch.testing.assert_close(torch.cat([first, chunk, *steps], dim=1), expected, rtol=1e-4, atol=1e-5)


def test_greedy_decoding_is_deterministic_and_picks_the_argmax():
    model = tiny_model()
    prompt = torch.randint(0, TINY.vocab_size, (2, 4), generator=torch.Generator().manual_seed(5))
    runs = []
    for _ in range(2):
        cache = KVCache(TINY, 2, 4 + 12, torch.float32, CPU)
        runs.append(generate(model, cache, EagerDecoder(model, cache), prompt, 12, Sampling(), CPU).tokens)
    assert torch.equal(runs[0], runs[1])
    # the same tokens as greedy decoding without a cache
    seq = prompt
    for _ in range(12):
        seq = torch.cat([seq, full_logits(model, seq)[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert torch.equal(runs[0], seq[:, 4:])


def test_top_1_sampling_is_greedy_and_sampling_follows_the_seed():
    model = tiny_model()
    prompt = torch.zeros(1, 3, dtype=torch.long)

    def run(sampling, seed):
        cache = KVCache(TINY, 1, 3 + 10, torch.float32, CPU)
        gen = torch.Generator().manual_seed(seed)
        return generate(model, cache, EagerDecoder(model, cache), prompt, 10, sampling, CPU, gen).tokens

    assert torch.equal(run(Sampling(1.0, top_k=1), 0), run(Sampling(), 0))
    assert torch.equal(run(Sampling(1.5), 7), run(Sampling(1.5), 7))
    assert not torch.equal(run(Sampling(5.0), 1), run(Sampling(5.0), 2))


def test_generate_times_every_decode_step_and_reports_progress_in_windows():
    model = tiny_model()
    cache = KVCache(TINY, 1, 4 + 20, torch.float32, CPU)
    reports = []
    timings = generate(model, cache, EagerDecoder(model, cache), torch.zeros(1, 4, dtype=torch.long), 20,
                       Sampling(), CPU, progress=lambda i, w: reports.append((i, len(w))), report_every=8)
    assert timings.ttft_s > 0 and len(timings.latencies_s) == 19 and all(s > 0 for s in timings.latencies_s)
    assert reports == [(8, 8), (16, 8), (19, 3)]
    assert timings.decode_tokens_per_s == pytest.approx(19 / sum(timings.latencies_s))


def test_bytes_per_step_count_every_weight_once_and_the_cache_read():
    model = tiny_model()
    total = sum(p.numel() for p in model.parameters()) * 4
    # all weights but the position table, of which one row is read
    assert weight_bytes_per_step(model) == total - TINY.n_ctx * TINY.n_embd * 4 + TINY.n_embd * 4
    assert kv_bytes_per_step(TINY, batch=3, context=10, element_size=2) == 2 * 2 * 3 * 10 * 32 * 2


def test_the_estimate_counts_the_weights_and_the_cache_the_run_allocates():
    config = TINY
    model = GPT2(config)
    cache = KVCache(config, 3, 8 + 20, torch.float32, torch.device("cpu"))
    need = gpt2_fit.estimate(config, batch=3, prompt_len=8, tokens=20, element_size=4)
    assert need.weights == parameter_count(model) * 4 and need.kv_cache == cache.nbytes
    assert 0 < need.activations and need.total == need.weights + need.kv_cache + need.activations


# --- the weight loader ---------------------------------------------------------------------------

def test_loader_maps_a_saved_hf_state_dict(tmp_path):
    source = tiny_model(seed=11)
    torch.save(hf_state_dict(source), tmp_path / "pytorch_model.bin")
    write_config(tmp_path, TINY)
    assert gpt2_config.read_config(tmp_path) == TINY
    target = tiny_model(seed=99)
    gpt2_weights.load_dir(target, tmp_path)
    ids = torch.arange(10).view(1, 10)
    torch.testing.assert_close(full_logits(target, ids), full_logits(source, ids), rtol=0, atol=0)


def test_loader_reads_safetensors_without_the_package(tmp_path):
    source = tiny_model(seed=4)
    state = {k: v for k, v in hf_state_dict(source, prefix="").items() if k != "lm_head.weight"}
    write_safetensors(tmp_path / "model.safetensors", state)
    read = state_dict._read_safetensors_plain(tmp_path / "model.safetensors")
    assert read.keys() == state.keys() and all(torch.equal(read[k], state[k]) for k in state)
    target = tiny_model(seed=5)
    gpt2_weights.load_dir(target, tmp_path)  # through the package when it is installed, else the plain reader
    assert torch.equal(target.wte_t, source.wte_t) and torch.equal(target.h[1].mlp.c_fc.weight,
                                                                  source.h[1].mlp.c_fc.weight)


def test_loader_rejects_a_mismatched_state_dict_naming_the_parameter():
    state = hf_state_dict(tiny_model())
    bad = dict(state)
    bad["transformer.h.1.mlp.c_fc.weight"] = torch.zeros(32, 100)
    with pytest.raises(WorkloadError, match=r"'h\.1\.mlp\.c_fc\.weight' has shape \(32, 100\), expected \(32, 128\)"):
        gpt2_weights.load_state_dict(tiny_model(), bad)
    missing = {k: v for k, v in state.items() if k != "transformer.h.0.attn.c_proj.bias"}
    with pytest.raises(WorkloadError, match=r"missing parameter 'h\.0\.attn\.c_proj\.bias'"):
        gpt2_weights.load_state_dict(tiny_model(), missing)
    extra = dict(state, **{"transformer.h.2.ln_1.weight": torch.ones(32)})  # a deeper checkpoint
    with pytest.raises(WorkloadError, match=r"unexpected parameter 'h\.2\.ln_1\.weight'"):
        gpt2_weights.load_state_dict(tiny_model(), extra)
    bigger = hf_state_dict(tiny_model(config=GPT2Config(n_layer=2, n_head=2, n_embd=48, n_ctx=64, vocab_size=101)))
    with pytest.raises(WorkloadError, match=r"'wte\.weight' has shape \(101, 48\), expected \(101, 32\)"):
        gpt2_weights.load_state_dict(tiny_model(), bigger)


def test_loader_rejects_a_directory_without_weights_and_a_foreign_config(tmp_path):
    with pytest.raises(WorkloadError, match="does not exist"):
        checkpoint_files.weights_files(tmp_path / "nope")
    with pytest.raises(WorkloadError, match="no model.safetensors or pytorch_model.bin"):
        checkpoint_files.weights_files(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama", "n_layer": 2}))
    with pytest.raises(WorkloadError, match="not GPT-2"):
        gpt2_config.read_config(tmp_path)
    (tmp_path / "pytorch_model.bin").write_bytes(b"not a checkpoint")
    with pytest.raises(WorkloadError, match="cannot read"):
        state_dict.read_state_dict(tmp_path)


# --- config.json and checkpoint files that cannot be a GPT-2 ---------------------------------------

GOOD = config_json(TINY)


@pytest.mark.parametrize("field, value, said", [
    ("n_head", 0, "n_head is 0, not a whole number of 1 or more"),          # was ZeroDivisionError
    ("n_layer", -2, "n_layer is -2, not a whole number of 1 or more"),      # was torch's raw error
    ("n_embd", "768", 'n_embd is "768", not a whole number of 1 or more'),
    ("vocab_size", 1.5, "vocab_size is 1.5, not a whole number of 1 or more"),
    ("n_positions", None, "n_positions is null, not a whole number of 1 or more"),
    ("layer_norm_epsilon", -1, "layer_norm_epsilon is -1, not a number between 0 and 1"),
    ("n_layer", ..., "lacks n_layer"),
])
def test_a_config_field_that_cannot_work_is_named(tmp_path, field, value, said):
    data = dict(GOOD)
    if value is ...:
        del data[field]
    else:
        data[field] = value
    (tmp_path / "config.json").write_text(json.dumps(data))
    with pytest.raises(WorkloadError) as raised:
        gpt2_config.read_config(tmp_path)
    message = raised.value.message
    assert message.startswith(str(tmp_path / "config.json")) and message.endswith(said) and "\n" not in message
    assert raised.value.exit_code == 2


def test_a_good_config_still_reads(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({**GOOD, "n_layer": 2.0}))  # 2.0 is a whole number
    assert gpt2_config.read_config(tmp_path) == TINY


def test_a_weights_path_says_what_it_is(tmp_path):
    with pytest.raises(WorkloadError, match="'.*nope' does not exist"):
        checkpoint_files.weights_files(tmp_path / "nope")
    a_file = tmp_path / "gpt2.bin"
    a_file.write_bytes(b"")
    with pytest.raises(WorkloadError, match=f"weights directory '{a_file}' is not a directory"):
        checkpoint_files.weights_files(a_file)
    with pytest.raises(WorkloadError, match=f"no model.safetensors or pytorch_model.bin in {tmp_path}"):
        checkpoint_files.weights_files(tmp_path)


class Pickled:  # a file of anything but tensors: the safe loader refuses it, and torch advises the unsafe one
    pass


def test_a_damaged_or_foreign_weights_file_never_advises_loading_it_unsafely(tmp_path):
    torch.save({"wte.weight": Pickled()}, tmp_path / "pytorch_model.bin")
    with pytest.raises(WorkloadError) as raised:
        state_dict.read_state_dict(tmp_path)
    said = raised.value.message + (raised.value.hint or "")
    assert f"holds {__name__}.Pickled, not tensors alone" in said
    for advice in ("weights_only", "trust", "\x1b["):
        assert advice not in said
    (tmp_path / "pytorch_model.bin").write_bytes(b"PK\x03\x04" + b"cut short" * 10)
    with pytest.raises(WorkloadError, match=r"cannot read .*pytorch_model.bin: [^\n]+$") as raised:
        state_dict.read_state_dict(tmp_path)
    assert "weights_only" not in raised.value.message
