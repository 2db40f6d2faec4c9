"""GPT-2-class token generation: tokens/s, time to first token and per-token latency, against the bound.

Run as ``python -m workloads.generate [options]`` (or ``cardbench run generate``).
The loop is what inference benchmarks measure: a prompt is prefilled, then
``--tokens`` tokens are decoded one step at a time from a KV cache, after a
warm-up, ``--repeat`` times. Batch-1 decoding reads every weight once per token,
so its physical bound is the device's read bandwidth, which the workload
measures itself (a large-tensor reduction on the same device, before the model
is built and after the timed runs, the best kept) and reports beside the
bandwidth the decoding achieved.

Events: ``start``; a ``step`` every ``--report-every`` decoded tokens (tokens/s
per sequence over that window, so the workbench plots it live; the step number
counts the tokens generated so far over all runs, ``--tokens`` x ``--repeat`` at
the end); ``fallback`` when a requested mode cannot run; a ``warning`` (code
``bound_exceeded``) when decoding beat the measured bound; one ``result``.

This module is the command line: the options, and the order of a run. What
they ask for is checked first (:mod:`~workloads.generate.plan`, before torch is
imported); the model, prompt and decoder are :mod:`~workloads.generate.setup`;
the timed runs and their figures, :mod:`~workloads.generate.measure`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Sequence

from workloads.child.harness import (ArgumentParser, Emitter, arguments_checked, log, non_negative_float,
                                     non_negative_int, positive_float, positive_int)
from workloads.generate.plan import Plan, make_plan
from workloads.generate.spec import REPEAT, TOKENS
from workloads.generate.result_record import GenerateResult

WORKLOAD = "generate"


def build_parser() -> ArgumentParser:
    from workloads.models.gpt2.config import SIZES

    p = ArgumentParser(prog=WORKLOAD,
                       description="GPT-2 token generation with a KV cache: tokens/s, latency, bandwidth bound.")
    p.add_argument("--model-size", choices=list(SIZES), default=None,
                   help="GPT-2 shape (default 124M; 'tiny' is a test shape); a --weights dir's config.json wins")
    p.add_argument("--weights", metavar="DIR", type=Path, default=None,
                   help="local Hugging Face GPT-2 directory (model.safetensors or pytorch_model.bin); "
                        "default: random weights")
    p.add_argument("--prompt-len", metavar="N", type=positive_int, default=32,
                   help="length of the random prompt, in tokens (default 32)")
    p.add_argument("--prompt", metavar="TEXT", default=None, help="prompt text (needs a local GPT-2 tokenizer.json)")
    p.add_argument("--tokenizer", metavar="PATH", type=Path, default=None,
                   help="tokenizer.json, or a directory holding one (default: the --weights dir)")
    p.add_argument("--tokens", metavar="N", type=positive_int, default=TOKENS, help=f"new tokens per run (default {TOKENS})")
    p.add_argument("--batch-size", metavar="N", type=positive_int, default=1,
                   help="sequences decoded together (default 1)")
    p.add_argument("--temperature", metavar="T", type=non_negative_float, default=0.0,
                   help="sampling temperature; 0 is greedy (default)")
    p.add_argument("--top-k", metavar="K", type=positive_int, default=None,
                   help="sample from the k likeliest tokens (needs --temperature above 0)")
    p.add_argument("--seed", metavar="N", type=int, default=0,
                   help="seed of the weights, prompt and sampling (default 0)")
    p.add_argument("--dtype", choices=["auto", "fp32", "fp16", "bf16"], default="auto",
                   help="weights and cache dtype (auto: fp32 on the CPU, else bf16, else fp16)")
    p.add_argument("--device", metavar="DEVICE", default="auto",
                   help="cuda, cuda:1, cpu, ... (default: first accelerator)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the decode step (with CUDA graphs on cuda)")
    p.add_argument("--cuda-graphs", action="store_true", help="capture the decode step as a CUDA graph")
    p.add_argument("--repeat", metavar="N", type=positive_int, default=REPEAT, help=f"timed runs (default {REPEAT})")
    p.add_argument("--warmup", metavar="N", type=non_negative_int, default=16,
                   help="untimed decode steps before the timed runs (default 16)")
    p.add_argument("--report-every", metavar="N", type=positive_int, default=16,
                   help="decoded tokens per step event (default 16)")
    p.add_argument("--time-budget", metavar="S", type=positive_float, default=None,
                   help="seconds the timed runs may take: fewer tokens per run when the warm-up's measured rate "
                        "says --tokens would not fit (the headless suite on a CPU gives its share)")
    return p


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    # PyTorch's switch for transparent huge pages on large CPU tensors (read at the first one): streaming
    # the weights over 2 MB pages decoded 10-20 % faster here, and the bandwidth probe reads faster alike
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    args = build_parser().parse_args(argv)
    plan = make_plan(args)
    arguments_checked()

    from workloads.child import bandwidth
    from workloads.child import device as dev
    from workloads.generate import measure, memory, setup
    from workloads.models import inference_dtype

    device = dev.resolve(args.device)
    dtype_name, skipped = inference_dtype.pick(args.dtype, device)
    emitter.start(WORKLOAD, _config_event(args, plan, device, dtype_name), dev.name(device), dev.versions())
    for name, error in skipped:
        emitter.fallback(error=f"{name} does not run on {device}: {error}", action="next dtype", op=name)
        log(f"{name} does not run on {device} ({error}); trying the next dtype")
    for message in plan.warnings:
        emitter.warning(message)
        log(f"warning: {message}")
    log(f"generate: GPT-2 {plan.size} on {dev.name(device)}, {dtype_name}, batch {args.batch_size}, "
        f"prompt {plan.prompt_len} + {args.tokens} new tokens, {args.repeat} timed run(s)")
    # the bound is measured before the model is built and again after the timed runs, and the best kept: one
    # round on a busy host reads low, and a bound below what decoding achieves is no bound. The first round's
    # tensor is freed before the model is built and the device's peak is reset before the timed runs (the
    # CPU's peak RSS cannot be reset: it is the larger of the probe and the model); the last round comes after
    # the peak memory is read.
    # one size for both rounds: after the model is built less memory is free, and a smaller tensor could sit
    # partly in cache and read high, which the best-of would keep
    # refused before the bandwidth probe and the model take memory, with the figure, not the allocator's raw line
    memory.check_fits(plan.config, plan.size, args.batch_size, plan.prompt_len, args.tokens, dtype_name,
                      inference_dtype.DTYPES[dtype_name].itemsize, device)
    probe_bytes = bandwidth.probe_bytes(device)
    before = bandwidth.measure_read_bandwidth(device, nbytes=probe_bytes)
    model, cache = setup.build(args, plan, device, inference_dtype.DTYPES[dtype_name])
    decoder, prompt, sampling, gen, warm_rate = setup.prepare(args, plan, model, cache, device, emitter)
    fit_to_budget(args, warm_rate)
    runs = measure.timed_runs(args, model, cache, decoder, prompt, sampling, gen, device, emitter)
    allocated, reserved = dev.peak_memory(device)
    read = bandwidth.best_of([before, bandwidth.measure_read_bandwidth(device, nbytes=probe_bytes)])
    log(f"device read bandwidth: {read.best_gbps:.1f} GB/s ({read.method}, before and after the timed runs: "
        + " / ".join(f"{g:.1f}" for g in read.round_bests) + f" GB/s; median {read.median_gbps:.1f})")
    metrics = measure.metrics(args, plan, model, cache, runs, read)
    exceeded = measure.bound_exceeded(metrics, bandwidth.last_level_cache_bytes(device))
    if exceeded:
        emitter.warning(exceeded, code="bound_exceeded")
        log(f"warning: {exceeded}")
    metrics.update(dtype=dtype_name, decode=decoder.kind, peak_memory_bytes=allocated,
                   peak_memory_reserved_bytes=reserved,
                   peak_memory_kind="process peak RSS" if device.type == "cpu" else "device peak allocated")
    if plan.tokenizer is not None:
        text = plan.tokenizer.decode(runs[-1].tokens[0].tolist())
        metrics["sample_text"] = text[:500]
        log(f"generated (sequence 1): {text!r}")
    emitter.result(GenerateResult.of(metrics))
    measure.log_summary(metrics)
    return 0


# the timed runs are given this share of the budget: the bandwidth probe after them and the result take the rest
BUDGET_SHARE = 0.6
MIN_TOKENS = 32   # below this a timed run is mostly its first token: no decode figure worth the name


def fit_to_budget(args: argparse.Namespace, rate: float | None) -> None:
    """Fewer tokens per timed run when the warm-up's rate says --tokens x --repeat would overrun --time-budget; a
    run that cardbench itself would cut at the budget is a problem the report would have to show."""
    if args.time_budget is None or not rate:
        return
    fits = int(rate * args.time_budget * BUDGET_SHARE / args.repeat)
    if fits >= args.tokens:
        return
    tokens = max(MIN_TOKENS, min(args.tokens, fits))
    log(f"generate: {tokens} tokens per timed run instead of {args.tokens}: the warm-up decoded {rate:.3g} "
        f"tokens/s, and {args.repeat} run(s) of {args.tokens} would not fit --time-budget {args.time_budget:g} s")
    args.sized_from = args.tokens
    args.tokens = tokens


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
