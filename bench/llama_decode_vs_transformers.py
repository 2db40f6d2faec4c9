"""cardbench's Llama-family decode tokens/s against transformers' ``generate()`` on the same weights (issue 24).

    .venv/bin/python bench/llama_decode_vs_transformers.py [--model tiny] [--tokens 128] [--prompt-len 32]
        [--rounds 3] [--device cpu] [--dtype fp32] [--no-compile]

One process holds both models: transformers' (LlamaForCausalLM or Qwen2ForCausalLM of the preset's shape,
random weights) and cardbench's (workloads/models/llama/model.py) loaded from its state dict, so the weights are the
same tensors' values. Greedy, batch 1, the same prompt and new-token count; the rounds interleave (cardbench,
then transformers) so a busy neighbour slows both alike. Decode tokens/s = (new tokens - 1) / (last token -
first token) for both (the first token is the prefill's): transformers timed per token with a streamer,
cardbench with its own per-step clock (workloads/models/decoding.generate, as the workload runs). The
greedy tokens are checked equal. Goal (issue 24): ratio >= 1.2 on the CPU in fp32 for tiny and Qwen2.5-0.5B.

Issue 40 adds cardbench's compiled decode (workloads/models/decoding.CompiledDecoder, what `cardbench run llm
--compile` runs) to each round, so one run prints eager, compiled and transformers side by side, the ratio of each to
transformers and compiled / eager (goal: not below 1), with the spread over the rounds (min, median, max): on a
shared machine a single round is noise.

transformers is a benchmark and test dependency only: `pip install transformers`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(1, str(REPO / "bench"))

DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def hf_model(config, torch_dtype, device):
    import transformers

    rope = None
    if config.rope_scaling is not None:
        s = config.rope_scaling
        rope = {"rope_type": "llama3", "factor": s.factor, "low_freq_factor": s.low_freq_factor,
                "high_freq_factor": s.high_freq_factor, "original_max_position_embeddings": s.original_max_position_embeddings}
    common = dict(vocab_size=config.vocab_size, hidden_size=config.hidden_size,
                  intermediate_size=config.intermediate_size, num_hidden_layers=config.num_hidden_layers,
                  num_attention_heads=config.num_attention_heads, num_key_value_heads=config.num_key_value_heads,
                  max_position_embeddings=config.max_position_embeddings, rope_theta=config.rope_theta,
                  rms_norm_eps=config.rms_norm_eps, tie_word_embeddings=config.tie_word_embeddings)
    if config.family == "qwen2":
        model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**common))
    elif config.family == "qwen3":
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**common, head_dim=config.head_dim))
    else:
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**common, rope_scaling=rope))
    return model.to(device=device, dtype=torch_dtype).eval()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--prompt-len", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=list(DTYPES), default="fp32")
    parser.add_argument("--no-compile", dest="compile", action="store_false",
                        help="leave cardbench's compiled decode out (its compile takes minutes on the CPU)")
    args = parser.parse_args()
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")  # as the workload sets for itself; both get the pages
    try:
        import torch
        import transformers
    except ImportError as exc:
        print(f"this benchmark needs transformers: {exc}; pip install transformers", file=sys.stderr)
        return 2
    from generate_vs_transformers import TokenClock
    from workloads.models.decoding import CompiledDecoder, EagerDecoder, Sampling, fastest_split, generate
    from workloads.models.llama.checkpoint import load_state_dict
    from workloads.models.llama.model import Llama
    from workloads.models.llama.presets import preset

    config = preset(args.model)
    if config is None:
        print(f"unknown model {args.model!r}", file=sys.stderr)
        return 2
    device, dtype = torch.device(args.device), getattr(torch, DTYPES[args.dtype])
    torch.manual_seed(0)
    hf = hf_model(config, dtype, device)
    ours = Llama(config).to(device=device, dtype=dtype)
    load_state_dict(ours, hf.state_dict(), "transformers' model")
    ours.eval().requires_grad_(False)
    print(f"{args.model} ({config.parameter_count() / 1e6:.1f}M parameters), random weights, {args.dtype}, greedy, "
          f"batch 1, prompt {args.prompt_len}, {args.tokens} new tokens, on {device} ({torch.get_num_threads()} "
          f"threads); torch {torch.__version__}, transformers {transformers.__version__}")
    prompt = torch.randint(0, config.vocab_size, (1, args.prompt_len), generator=torch.Generator().manual_seed(0))
    prompt = prompt.to(device)
    cache = ours.new_cache(1, args.prompt_len + args.tokens)
    decoder = EagerDecoder(ours, cache)
    if device.type == "cpu":  # as the workload: products split over the cores when that decodes faster
        ours.split_products(torch.get_num_threads())
        tried = fastest_split(ours, cache, decoder, prompt, 8, Sampling(), device)
        print("cardbench's products split over " + " / ".join(f"{k} core(s): {v * 1000:.1f} ms a step"
                                                            for k, v in tried.items()) + f"; using {ours.split}")

    def theirs_round(tokens: int):
        clock = TokenClock()
        with torch.inference_mode():
            out = hf.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=tokens,
                              min_new_tokens=tokens, do_sample=False, streamer=clock, pad_token_id=0)
        return (len(clock.times) - 1) / (clock.times[-1] - clock.times[0]), out[:, args.prompt_len:]

    theirs_round(8)  # warm-up of both
    generate(ours, cache, decoder, prompt, 8, Sampling(), device)
    decoders = {"eager": decoder}
    if args.compile:
        started = time.perf_counter()
        decoders["compiled"] = CompiledDecoder(ours, cache, device)
        print(f"cardbench's decode step compiled in {time.perf_counter() - started:.0f} s", flush=True)
    rates: dict[str, list[float]] = {name: [] for name in (*decoders, "transformers")}
    for r in range(1, args.rounds + 1):
        said = []
        for name, dec in decoders.items():
            timing = generate(ours, cache, dec, prompt, args.tokens, Sampling(), device)
            rates[name].append(timing.decode_tokens_per_s)
            said.append((name, timing.tokens))
        theirs, their_tokens = theirs_round(args.tokens)
        rates["transformers"].append(theirs)
        same = all(torch.equal(tokens, their_tokens) for _, tokens in said)
        print(f"round {r}: " + " | ".join(f"cardbench {name} {rates[name][-1]:.2f} tokens/s" for name in decoders)
              + f" | transformers {theirs:.2f} tokens/s | " + " | ".join(
                  f"{name} / transformers {rates[name][-1] / theirs:.2f}" for name in decoders)
              + (f" | compiled / eager {rates['compiled'][-1] / rates['eager'][-1]:.2f}" if args.compile else "")
              + f" | greedy tokens {'equal' if same else 'DIFFER'}", flush=True)
    print(f"over {args.rounds} rounds (min / median / max):")
    for name in decoders:
        _spread(f"decode ratio cardbench {name} / transformers", rates[name], rates["transformers"],
                "goal >= 1.2 on the CPU in fp32")
    if args.compile:
        _spread("compiled / eager", rates["compiled"], rates["eager"], "goal >= 1: the compiled path not slower")
    return 0


def _spread(what: str, mine: list[float], theirs: list[float], goal: str) -> None:
    ratios = sorted(a / b for a, b in zip(mine, theirs))
    print(f"  {what}: {ratios[0]:.2f} / {statistics.median(ratios):.2f} / {ratios[-1]:.2f} ({goal})")


if __name__ == "__main__":
    sys.exit(main())
