"""What a generate run decodes with: the model and its KV cache, the prompt, and a decoder that has run.

A requested decoder that cannot run here (CUDA graphs off cuda, a capture or
compile failure) becomes eager with a ``fallback`` event instead of ending the run.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import torch

from workloads.child import device as dev
from workloads.child.harness import Emitter, log
from workloads.errors import first_line
from workloads.models.gpt2 import model as gpt2
from workloads.models.gpt2 import weights as gpt2_weights
from workloads.generate.plan import Plan
from workloads.models.decoding import CompiledDecoder, EagerDecoder, GraphDecoder, Sampling, fastest_split, generate


def build(args: argparse.Namespace, plan: Plan, device: Any, dtype: Any) -> tuple[Any, Any]:
    """The model (random or loaded weights) and its KV cache, on the device."""
    started = time.perf_counter()
    with torch.device(device):
        model = gpt2.GPT2(plan.config)
    model = model.to(dtype)
    if args.weights is not None:
        gpt2_weights.load_dir(model, args.weights)
    else:
        model.init_random(args.seed)
    model.eval().requires_grad_(False)
    if device.type == "cpu":
        model.split_products(torch.get_num_threads())
    cache = gpt2.KVCache(plan.config, args.batch_size, plan.prompt_len + args.tokens, dtype, device)
    log(f"model: {gpt2.parameter_count(model) / 1e6:.1f}M parameters, "
        f"{gpt2.weight_bytes_per_step(model) / 1e6:.1f} MB of weights read per decode step, "
        f"KV cache {cache.nbytes / 1e6:.1f} MB, built in {time.perf_counter() - started:.1f} s")
    return model, cache


def prepare(args: argparse.Namespace, plan: Plan, model: Any, cache: Any, device: Any,
            emitter: Emitter) -> tuple[Any, Any, Any, Any]:
    """The decoder (warmed up, or fallen back to eager), the prompt, the sampling rule and its generator."""
    try:
        gen = torch.Generator(device=device).manual_seed(args.seed)
    except RuntimeError:  # a backend without device generators samples from the global one
        torch.manual_seed(args.seed)
        gen = None
    if plan.prompt_ids is not None:
        prompt = torch.tensor([plan.prompt_ids] * args.batch_size, dtype=torch.long, device=device)
    else:
        prompt = torch.randint(0, plan.config.vocab_size, (args.batch_size, plan.prompt_len),
                               generator=torch.Generator().manual_seed(args.seed)).to(device)
    sampling = Sampling(args.temperature, args.top_k)
    decoder = _decoder(args, model, cache, device, emitter)
    # a compiled or graphed step must run before the clock starts: that is where it compiles or fails
    warm_steps = max(args.warmup, 0 if decoder.kind == "eager" else 2)
    warm_rate = None
    if warm_steps:
        warm_tokens = min(warm_steps + 1, args.tokens)
        try:
            generate(model, cache, decoder, prompt, warm_tokens, sampling, device, gen)
        except Exception as exc:  # noqa: BLE001 - a compile/graph failure falls back; an eager one is real
            if decoder.kind == "eager":
                raise
            _fall_back(emitter, exc, decoder.kind, f"{decoder.kind} decode failed")
            decoder = EagerDecoder(model, cache)
            generate(model, cache, decoder, prompt, warm_tokens, sampling, device, gen)
        # a second pass, timed, once compiled or graphed: the rate --time-budget sizes the timed runs from
        warm_rate = generate(model, cache, decoder, prompt, warm_tokens, sampling, device, gen).decode_tokens_per_s \
            if args.time_budget is not None else None
        log(f"warm-up: {warm_tokens - 1} decode steps ({decoder.kind})")
    split_steps = min(args.warmup // 4, args.tokens - 1)
    if model.split > 1 and decoder.kind == "eager" and split_steps >= 2:
        tried = fastest_split(model, cache, decoder, prompt, split_steps, sampling, device, gen)
        log("products split over " + " / ".join(f"{k} core(s): {v * 1000:.1f} ms a step" for k, v in tried.items())
            + f"; using {model.split}")
    return decoder, prompt, sampling, gen, warm_rate


def _decoder(args: argparse.Namespace, model: Any, cache: Any, device: Any, emitter: Emitter) -> Any:
    """The decoder the flags ask for, or eager with a fallback event when it cannot run here."""
    if args.cuda_graphs:
        if not dev.can_capture(device):
            emitter.fallback(error=f"graph capture needs a device type with graphs (cuda, npu, mlu, musa, xpu), "
                                   f"not {device.type}", action="eager decode", op="cuda-graph")
            log("graph capture is not available on this device; decoding eager")
        else:
            try:
                with torch.inference_mode():
                    return GraphDecoder(model, cache, args.batch_size, device)
            except Exception as exc:  # noqa: BLE001 - capture failure is a fallback, not the end
                _fall_back(emitter, exc, "cuda-graph", "CUDA graph capture failed")
    if args.compile:
        try:
            return CompiledDecoder(model, cache, device)
        except Exception as exc:  # noqa: BLE001
            _fall_back(emitter, exc, "compiled", "torch.compile is not available")
    return EagerDecoder(model, cache)


def _fall_back(emitter: Emitter, exc: BaseException, op: str, what: str) -> None:
    error = first_line(exc, typed=True)
    emitter.fallback(error=error, action="eager decode", op=op)
    log(f"{what} ({error}); decoding eager")
