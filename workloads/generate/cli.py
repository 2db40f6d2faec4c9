"""GPT-2-class token generation: tokens/s, time to first token and per-token latency, against the bound.

Run as ``python -m workloads.generate [options]`` (or ``cardbench run generate``).
The loop is what inference benchmarks measure: a prompt is prefilled, then
``--tokens`` tokens are decoded one step at a time from a KV cache, after a
warm-up, ``--repeat`` times. Batch-1 decoding reads every weight once per token,
so its physical bound is the device's read bandwidth, which the workload
measures itself (a large-tensor reduction on the same device) and reports
beside the bandwidth the decoding achieved.

Events: ``start``; a ``step`` every ``--report-every`` decoded tokens (tokens/s
per sequence over that window, so the workbench plots it live; the step number
counts the tokens generated so far over all runs, ``--tokens`` x ``--repeat`` at
the end); ``fallback`` when a requested mode cannot run; one ``result``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from workloads.generate.config import GPT2Config
from workloads.child.harness import (ArgumentParser, Emitter, WorkloadError, non_negative_float, non_negative_int,
                               positive_int, run_main)

WORKLOAD = "generate"


def build_parser() -> ArgumentParser:
    from workloads.generate.config import SIZES

    p = ArgumentParser(prog=WORKLOAD,
                       description="GPT-2 token generation with a KV cache: tokens/s, latency, bandwidth bound.")
    p.add_argument("--model-size", choices=list(SIZES), default=None,
                   help="GPT-2 shape (default 124M; 'tiny' is a test shape); a --weights dir's config.json wins")
    p.add_argument("--weights", metavar="DIR", type=Path, default=None,
                   help="local Hugging Face GPT-2 directory (model.safetensors or pytorch_model.bin); "
                        "default: random weights")
    p.add_argument("--prompt-len", metavar="N", type=positive_int, default=32,
                   help="random prompt token ids (default 32)")
    p.add_argument("--prompt", metavar="TEXT", default=None, help="prompt text (needs a local GPT-2 tokenizer.json)")
    p.add_argument("--tokenizer", metavar="PATH", type=Path, default=None,
                   help="tokenizer.json, or a directory holding one (default: the --weights dir)")
    p.add_argument("--tokens", metavar="N", type=positive_int, default=256, help="new tokens per run (default 256)")
    p.add_argument("--batch-size", metavar="N", type=positive_int, default=1,
                   help="sequences decoded together (default 1)")
    p.add_argument("--temperature", metavar="T", type=non_negative_float, default=0.0, help="0 is greedy (default)")
    p.add_argument("--top-k", metavar="K", type=positive_int, default=None, help="sample from the k likeliest tokens")
    p.add_argument("--seed", metavar="N", type=int, default=0, help="seed of the weights, prompt and sampling")
    p.add_argument("--dtype", choices=["auto", "fp32", "fp16", "bf16"], default="auto",
                   help="weights and cache dtype (auto: fp32 on the CPU, else bf16, else fp16)")
    p.add_argument("--device", metavar="DEVICE", default="auto",
                   help="cuda, cuda:1, cpu, ... (default: first accelerator)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the decode step (with CUDA graphs on cuda)")
    p.add_argument("--cuda-graphs", action="store_true", help="capture the decode step as a CUDA graph")
    p.add_argument("--repeat", metavar="N", type=positive_int, default=3, help="timed runs (default 3)")
    p.add_argument("--warmup", metavar="N", type=non_negative_int, default=16,
                   help="untimed decode steps before the timed runs (default 16)")
    p.add_argument("--report-every", metavar="N", type=positive_int, default=16,
                   help="decoded tokens per step event (default 16)")
    return p


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Plan:
    """What the flags ask for, checked before torch is imported."""

    config: GPT2Config
    size: str
    prompt_len: int
    prompt_ids: list[int] | None
    tokenizer: Any
    warnings: tuple[str, ...] = ()


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    # PyTorch's switch for transparent huge pages on large CPU tensors (read at the first one): streaming
    # the weights over 2 MB pages decoded 10-20 % faster here, and the bandwidth probe reads faster alike
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    args = build_parser().parse_args(argv)
    plan = _plan(args)

    from workloads.child import device as dev
    from workloads.generate import precision

    device = dev.resolve(args.device)
    dtype_name, skipped = precision.pick(args.dtype, device)
    emitter.start(WORKLOAD, _config_event(args, plan, device, dtype_name), dev.name(device), dev.versions())
    for name, error in skipped:
        emitter.fallback(error=f"{name} does not run on {device}: {error}", action="next dtype", op=name)
        log(f"{name} does not run on {device} ({error}); trying the next dtype")
    for message in plan.warnings:
        emitter.warning(message)
        log(f"warning: {message}")
    log(f"generate: GPT-2 {plan.size} on {dev.name(device)}, {dtype_name}, batch {args.batch_size}, "
        f"prompt {plan.prompt_len} + {args.tokens} new tokens, {args.repeat} timed run(s)")
    model, cache = _build(args, plan, device, precision.DTYPES[dtype_name])
    decoder, prompt, sampling, gen = _prepare(args, plan, model, cache, device, emitter)
    runs = _timed_runs(args, model, cache, decoder, prompt, sampling, gen, device, emitter)
    allocated, reserved = dev.peak_memory(device)

    from workloads.child import bandwidth

    # measured after the runs, so its large tensor stays out of the peak memory read just above
    read = bandwidth.measure_read_bandwidth(device)
    log(f"device read bandwidth: {read.best_gbps:.1f} GB/s ({read.method}; median {read.median_gbps:.1f})")
    metrics = _metrics(args, plan, model, cache, runs, read)
    metrics.update(dtype=dtype_name, decode=decoder.kind, peak_memory_bytes=allocated,
                   peak_memory_reserved_bytes=reserved,
                   peak_memory_kind="process peak RSS" if device.type == "cpu" else "device peak allocated")
    if plan.tokenizer is not None:
        text = plan.tokenizer.decode(runs[-1].tokens[0].tolist())
        metrics["sample_text"] = text[:500]
        log(f"generated (sequence 1): {text!r}")
    emitter.result(metrics)
    _log_summary(metrics)
    return 0


def _config_event(args: argparse.Namespace, plan: Plan, device: Any, dtype_name: str) -> dict[str, Any]:
    c = plan.config
    return {
        "model_size": plan.size, "weights": str(args.weights) if args.weights else f"random (seed {args.seed})",
        "n_layer": c.n_layer, "n_head": c.n_head, "n_embd": c.n_embd, "n_ctx": c.n_ctx, "vocab_size": c.vocab_size,
        "prompt_len": plan.prompt_len, "prompt": "text" if args.prompt else "random", "tokens": args.tokens,
        "batch_size": args.batch_size, "temperature": args.temperature, "top_k": args.top_k, "dtype": dtype_name,
        "device": str(device), "compile": args.compile, "cuda_graphs": args.cuda_graphs, "repeat": args.repeat,
        "warmup": args.warmup, "seed": args.seed,
    }


def _build(args: argparse.Namespace, plan: Plan, device: Any, dtype: Any) -> tuple[Any, Any]:
    """The model (random or loaded weights) and its KV cache, on the device."""
    import torch

    from workloads.generate import gpt2
    from workloads.generate import weights as gpt2_weights

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


def _prepare(args: argparse.Namespace, plan: Plan, model: Any, cache: Any, device: Any,
             emitter: Emitter) -> tuple[Any, Any, Any, Any]:
    """The decoder (warmed up, or fallen back to eager), the prompt, the sampling rule and its generator."""
    import torch

    from workloads.generate.decoding import EagerDecoder, Sampling, fastest_split, generate

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
    if warm_steps:
        warm_tokens = min(warm_steps + 1, args.tokens)
        try:
            generate(model, cache, decoder, prompt, warm_tokens, sampling, device, gen)
        except Exception as exc:  # noqa: BLE001 - a compile/graph failure falls back; an eager one is real
            if decoder.kind == "eager":
                raise
            emitter.fallback(error=_first_line(exc), action="eager decode", op=decoder.kind)
            log(f"{decoder.kind} decode failed ({_first_line(exc)}); decoding eager")
            decoder = EagerDecoder(model, cache)
            generate(model, cache, decoder, prompt, warm_tokens, sampling, device, gen)
        log(f"warm-up: {warm_tokens - 1} decode steps ({decoder.kind})")
    split_steps = min(args.warmup // 4, args.tokens - 1)
    if model.split > 1 and decoder.kind == "eager" and split_steps >= 2:
        tried = fastest_split(model, cache, decoder, prompt, split_steps, sampling, device, gen)
        log("products split over " + " / ".join(f"{k} core(s): {v * 1000:.1f} ms a step" for k, v in tried.items())
            + f"; using {model.split}")
    return decoder, prompt, sampling, gen


def _timed_runs(args: argparse.Namespace, model: Any, cache: Any, decoder: Any, prompt: Any, sampling: Any,
                gen: Any, device: Any, emitter: Emitter) -> list[Any]:
    """``--repeat`` timed generations; a step event every ``--report-every`` decoded tokens."""
    from workloads.child import device as dev
    from workloads.generate.decoding import generate

    dev.reset_peak_memory(device)
    runs = []
    for r in range(args.repeat):
        def progress(token_index: int, window: list[float], r: int = r) -> None:
            # the step number counts tokens generated so far over all runs, so the last is tokens x repeat
            rate = len(window) / sum(window) if sum(window) > 0 else None
            allocated, reserved = dev.peak_memory(device)
            emitter.step(r * args.tokens + token_index + 1, throughput=rate, unit="tokens/s",
                         step_s=statistics.fmean(window), memory_allocated_bytes=allocated,
                         memory_reserved_bytes=reserved, repeat=r + 1, token=token_index + 1,
                         aggregate_throughput=rate * args.batch_size if rate else None)

        timings = generate(model, cache, decoder, prompt, args.tokens, sampling, device, gen,
                           progress=progress, report_every=args.report_every)
        runs.append(timings)
        rate = timings.decode_tokens_per_s
        log(f"run {r + 1}/{args.repeat}: time to first token {timings.ttft_s * 1000:.1f} ms, decode "
            + (f"{rate:.1f} tokens/s per sequence" if rate else "n/a (one token: no decode step)"))
    return runs


def _metrics(args: argparse.Namespace, plan: Plan, model: Any, cache: Any, runs: list[Any],
             read: Any) -> dict[str, Any]:
    """Throughput, latency and the bandwidth bound over the timed runs; None where a number is missing."""
    from workloads.generate import gpt2
    from workloads.generate.decoding import percentile

    latencies = [s for t in runs for s in t.latencies_s]
    rates = [t.decode_tokens_per_s for t in runs if t.decode_tokens_per_s is not None]
    tokens_per_s = statistics.median(rates) if rates else None
    # decode steps attend over prompt_len + 1 ... prompt_len + tokens - 1 positions
    mean_context = plan.prompt_len + args.tokens / 2
    weight_bytes = gpt2.weight_bytes_per_step(model)
    kv_bytes = gpt2.kv_bytes_per_step(plan.config, args.batch_size, mean_context, cache.data.element_size())
    bytes_per_step = weight_bytes + kv_bytes
    achieved = bytes_per_step * tokens_per_s / 1e9 if tokens_per_s else None
    return {
        "tokens_per_s": tokens_per_s,
        "aggregate_tokens_per_s": tokens_per_s * args.batch_size if tokens_per_s else None,
        "bound_tokens_per_s": read.best_gbps * 1e9 / bytes_per_step,
        "ttft_s": statistics.median(t.ttft_s for t in runs),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p90_s": percentile(latencies, 90),
        "latency_p99_s": percentile(latencies, 99),
        "end_to_end_tokens_per_s": statistics.median(args.tokens * args.batch_size / (t.ttft_s + t.decode_s)
                                                     for t in runs),
        "bandwidth_gbps": achieved,
        "device_read_gbps": read.best_gbps,
        "device_read_median_gbps": read.median_gbps,
        "bandwidth_fraction": achieved / read.best_gbps if achieved else None,
        "bandwidth_method": read.method,
        "weight_bytes_per_step": weight_bytes,
        "kv_bytes_per_step": kv_bytes,
        "batch_size": args.batch_size,
        "tokens": args.tokens,
        "prompt_len": plan.prompt_len,
        "model_size": plan.size,
        "parameters": gpt2.parameter_count(model),
        "product_split": model.split,
        "repeat": args.repeat,
        "tokens_per_s_runs": rates,
    }


def _log_summary(m: dict[str, Any]) -> None:
    if not m["tokens_per_s"]:
        return
    log(f"decode {m['tokens_per_s']:.1f} tokens/s per sequence ({m['aggregate_tokens_per_s']:.1f} in aggregate) "
        f"against a bound of {m['bound_tokens_per_s']:.1f} at {m['device_read_gbps']:.1f} GB/s read bandwidth: "
        f"{m['bandwidth_gbps']:.1f} GB/s achieved, {m['bandwidth_fraction']:.0%} of it; "
        f"latency p50 {m['latency_p50_s'] * 1000:.1f} ms, p99 {m['latency_p99_s'] * 1000:.1f} ms; "
        f"time to first token {m['ttft_s'] * 1000:.1f} ms")


def _plan(args: argparse.Namespace) -> Plan:
    """Shape, prompt and limits, checked before any torch work; raises WorkloadError on bad input."""
    from workloads.generate import tokenizer as gpt2_tokenizer
    from workloads.generate.config import SIZES, read_config, size_name

    config = SIZES[args.model_size or "124M"]
    if args.weights is not None:
        from workloads.generate.weights import weights_files  # imports torch: only when weights are given

        weights_files(args.weights)  # a missing dir or checkpoint fails now, before the model is built
        found = read_config(args.weights)
        if found is not None:
            config = found
    size = size_name(config)
    warnings = []
    if args.model_size and args.weights is not None and size != args.model_size:
        warnings.append(f"{args.weights}/config.json describes GPT-2 {size}; --model-size {args.model_size} ignored")
    if args.top_k is not None and args.temperature == 0:
        raise WorkloadError("--top-k needs sampling: give --temperature above 0",
                            hint="greedy decoding (temperature 0) ignores top-k")
    if args.cuda_graphs and args.compile:
        raise WorkloadError("--compile and --cuda-graphs are exclusive",
                            hint="--compile already uses CUDA graphs on cuda")
    tokenizer, prompt_ids = None, None
    prompt_len = args.prompt_len
    if args.prompt is not None:
        tokenizer = gpt2_tokenizer.load(gpt2_tokenizer.find(args.tokenizer, args.weights))
        prompt_ids = gpt2_tokenizer.encode(tokenizer, args.prompt, config.vocab_size)
        prompt_len = len(prompt_ids)
    if prompt_len + args.tokens > config.n_ctx:
        raise WorkloadError(f"prompt ({prompt_len}) plus new tokens ({args.tokens}) is {prompt_len + args.tokens} "
                            f"positions, beyond the model's context of {config.n_ctx}",
                            hint="lower --tokens or --prompt-len")
    return Plan(config, size, prompt_len, prompt_ids, tokenizer, tuple(warnings))


def _decoder(args: argparse.Namespace, model: Any, cache: Any, device: Any, emitter: Emitter) -> Any:
    """The decoder the flags ask for, or eager with a fallback event when it cannot run here."""
    import torch

    from workloads.generate.decoding import CompiledDecoder, EagerDecoder, GraphDecoder

    if args.cuda_graphs:
        if device.type != "cuda" or not hasattr(torch.cuda, "CUDAGraph"):
            emitter.fallback(error=f"CUDA graphs need a cuda device, not {device.type}", action="eager decode",
                             op="cuda-graph")
            log("CUDA graphs are not available on this device; decoding eager")
        else:
            try:
                with torch.inference_mode():
                    return GraphDecoder(model, cache, args.batch_size, device)
            except Exception as exc:  # noqa: BLE001 - capture failure is a fallback, not the end
                emitter.fallback(error=_first_line(exc), action="eager decode", op="cuda-graph")
                log(f"CUDA graph capture failed ({_first_line(exc)}); decoding eager")
    if args.compile:
        try:
            return CompiledDecoder(model, cache, device)
        except Exception as exc:  # noqa: BLE001
            emitter.fallback(error=_first_line(exc), action="eager decode", op="compiled")
            log(f"torch.compile is not available ({_first_line(exc)}); decoding eager")
    return EagerDecoder(model, cache)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__

