"""The timed generations of a run and what they measure: tokens/s, latency, and the bandwidth bound.

Batch-1 decoding reads every weight once per token, so the bound is the bytes a
decode step reads (weights plus the KV cache at the mean context) over the
device's measured read bandwidth. Decoding faster than that bound means the
bound was measured low (a busy host), so the share of the bandwidth is then
published only as ``bandwidth_fraction_unreliable``, with a warning, never as
a ``bandwidth_fraction`` above 100 %.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from workloads.child import device as dev
from workloads.child.harness import Emitter, log
from workloads.facts.formatting import percent
from workloads.facts.percentile import percentile
from workloads.models.gpt2 import model as gpt2
from workloads.generate.plan import Plan
from workloads.generate.spec import planned_steps
from workloads.models.decoding import generate


def timed_runs(args: argparse.Namespace, model: Any, cache: Any, decoder: Any, prompt: Any, sampling: Any,
               gen: Any, device: Any, emitter: Emitter) -> list[Any]:
    """``--repeat`` timed generations; a step event every ``--report-every`` decoded tokens."""
    dev.reset_peak_memory(device)
    runs = []
    planned = planned_steps([], {"tokens": args.tokens, "repeat": args.repeat})  # the launcher's count too
    for r in range(args.repeat):
        def progress(token_index: int, window: list[float], r: int = r) -> None:
            # the step number counts tokens generated so far over all runs, so the last is tokens x repeat
            rate = len(window) / sum(window) if sum(window) > 0 else None
            allocated, reserved = dev.peak_memory(device)
            emitter.step(r * args.tokens + token_index + 1, throughput=rate, unit="tokens/s",
                         step_s=statistics.fmean(window), memory_allocated_bytes=allocated,
                         memory_reserved_bytes=reserved, total_steps=planned, counts="tokens",
                         throughput_window=len(window), repeat=r + 1, token=token_index + 1,
                         aggregate_throughput=rate * args.batch_size if rate else None)

        timings = generate(model, cache, decoder, prompt, args.tokens, sampling, device, gen,
                           progress=progress, report_every=args.report_every)
        runs.append(timings)
        rate = timings.decode_tokens_per_s
        log(f"run {r + 1}/{args.repeat}: time to first token {timings.ttft_s * 1000:.1f} ms, decode "
            + (f"{rate:.1f} tokens/s per sequence" if rate else "n/a (one token: no decode step)"))
    return runs


def metrics(args: argparse.Namespace, plan: Plan, model: Any, cache: Any, runs: list[Any],
            read: Any) -> dict[str, Any]:
    """Throughput, latency and the bandwidth bound over the timed runs; None where a number is missing."""
    latencies = [s for t in runs for s in t.latencies_s]
    rates = [t.decode_tokens_per_s for t in runs if t.decode_tokens_per_s is not None]
    tokens_per_s = statistics.median(rates) if rates else None
    # decode steps attend over prompt_len + 1 ... prompt_len + tokens - 1 positions
    mean_context = plan.prompt_len + args.tokens / 2
    weight_bytes = gpt2.weight_bytes_per_step(model)
    kv_bytes = gpt2.kv_bytes_per_step(plan.config, args.batch_size, mean_context, cache.data.element_size())
    bytes_per_step = weight_bytes + kv_bytes
    achieved = bytes_per_step * tokens_per_s / 1e9 if tokens_per_s else None
    fraction = achieved / read.best_gbps if achieved else None
    exceeded = fraction is not None and fraction > 1
    m = {
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
        "device_read_rounds_gbps": list(read.round_bests) or [read.best_gbps],
        "bandwidth_fraction": None if exceeded else fraction,
        "bandwidth_method": read.method,
        "weight_bytes_per_step": weight_bytes,
        "kv_bytes_per_step": kv_bytes,
        "batch_size": args.batch_size,
        "tokens": args.tokens,
        # what --tokens asked: more than "tokens" when --time-budget lowered it (the report read N/A otherwise)
        "tokens_asked": getattr(args, "sized_from", None) or args.tokens,
        "prompt_len": plan.prompt_len,
        "model_size": plan.size,
        "parameters": gpt2.parameter_count(model),
        "product_split": model.split,
        "repeat": args.repeat,
        "tokens_per_s_runs": rates,
    }
    if exceeded:
        m["bandwidth_fraction_unreliable"] = fraction
    return m


def bound_exceeded(m: dict[str, Any], cache_bytes: int | None) -> str | None:
    """Why the run decoded faster than its bound, when it did; None when the bound held.

    ``cache_bytes`` is the device's last-level cache: a step whose reads fit in it is not bound by memory at all.
    """
    if m.get("bandwidth_fraction_unreliable") is None:
        return None
    step_bytes = m["weight_bytes_per_step"] + m["kv_bytes_per_step"]
    said = (f"decoding read {_figure(m['bandwidth_gbps'])} GB/s ({_figure(m['tokens_per_s'])} tokens/s), more than "
            f"the {_figure(m['device_read_gbps'])} GB/s measured as the device's read bandwidth (bound "
            f"{_figure(m['bound_tokens_per_s'])} tokens/s)")
    if cache_bytes and step_bytes <= cache_bytes:
        why = (f"the {step_bytes / 1e6:.1f} MB a step reads fits in the {cache_bytes / 2**20:.0f} MiB last-level "
               "cache, so memory bandwidth does not bound it")
    else:
        why = "the bound was mis-measured, most likely while the host was busy with other work"
    return f"{said}: {why}; the share of read bandwidth used is left out as unreliable"


def _figure(value: float) -> str:
    return f"{value:,.1f}" if value >= 1 else f"{value:.3g}"


def log_summary(m: dict[str, Any]) -> None:
    if not m["tokens_per_s"]:
        return
    # the share as the RESULT line and the report print it (facts.formatting.percent: '41.4 %', not '41%')
    share = (f"{percent(m['bandwidth_fraction'])} of it" if m["bandwidth_fraction"] is not None
             else "above it, so the bound is unreliable")
    runs = len(m["tokens_per_s_runs"])
    log(f"decode {m['tokens_per_s']:.1f} tokens/s per sequence, median after warm-up of {runs} timed "
        f"run{'s' if runs != 1 else ''} ({m['aggregate_tokens_per_s']:.1f} in aggregate) "
        f"against a bound of {m['bound_tokens_per_s']:.1f} at {m['device_read_gbps']:.1f} GB/s read bandwidth: "
        f"{m['bandwidth_gbps']:.1f} GB/s achieved, {share}; "
        f"latency p50 {m['latency_p50_s'] * 1000:.1f} ms, p99 {m['latency_p99_s'] * 1000:.1f} ms; "
        f"time to first token {m['ttft_s'] * 1000:.1f} ms")
