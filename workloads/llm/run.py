"""The order of an llm run: the model, each cell, pp/tg, the bandwidth bound, and the figures.

The device's read bandwidth is measured after the timed work (a reduction over a large tensor, as
generate does, :mod:`workloads.child.bandwidth`), and before it too on an accelerator (best kept): on
the CPU the probe's tensor would otherwise set the process's peak RSS, which is the CPU's memory figure.
"""

from __future__ import annotations

import argparse
import re
import time
from typing import Any

import torch

from workloads.child import bandwidth
from workloads.child import device as dev
from workloads.child.harness import Emitter, log
from workloads.errors import first_line
from workloads.facts.formatting import format_bytes
from workloads.facts.rated import lookup, rated_peak
from workloads.models.decoding import CompiledDecoder, EagerDecoder, GraphDecoder, fastest_split, generate
from workloads.models import inference_dtype
from workloads.llm import against, bench_bounds, cell_tables, cells, fallback_check, table as cells_table
from workloads.models.llama.model import Llama, weight_bytes_per_step
from workloads.llm.plan import Plan, identity
from workloads.models.llama.presets import PRESETS


def config_event(args: argparse.Namespace, plan: Plan, device: Any, dtype_name: str) -> dict[str, Any]:
    c = plan.config
    return {"model_size": plan.model, "family": c.family,
            "weights": str(args.weights) if args.weights else f"random (seed {args.seed})",
            "prompt": "text" if args.prompt is not None else "random",
            "layers": c.num_hidden_layers, "hidden": c.hidden_size, "heads": c.num_attention_heads,
            "kv_heads": c.num_key_value_heads, "vocab_size": c.vocab_size, "parameters": c.parameter_count(),
            "sweep": plan.sweep, "cells": len(plan.cells), "repeat": args.repeat, "pp": plan.pp, "tg": plan.tg,
            "repetitions": args.repetitions, "dtype": dtype_name, "device": str(device),
            "cuda_graphs": args.cuda_graphs, "compile": args.compile, "total_steps": steps(plan)}


def steps(plan: Plan) -> int:
    """The run's steps: a cell each, then a llama-bench test each (the launcher's ETA spans both)."""
    return len(plan.cells) + len(plan.tests)


def _rss() -> int | None:
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except Exception:  # noqa: BLE001 - no baseline, no CPU memory figure
        return None


def _load_kernels(device: torch.device, dtype: torch.dtype) -> None:
    """Run a small model once, so the kernels' code and thread pools are in the RSS before the baseline."""
    small = Llama(PRESETS["tiny"].__class__(hidden_size=64, intermediate_size=128, num_hidden_layers=1,
                                            num_attention_heads=4, num_key_value_heads=2, vocab_size=64))
    small = small.to(device=device, dtype=dtype)
    small.init_random(0)
    cache = small.new_cache(2, 16)
    generate(small, cache, EagerDecoder(small, cache), torch.zeros(2, 8, dtype=torch.long, device=device), 4,
             cells.GREEDY, device)


def build(args: argparse.Namespace, plan: Plan, device: torch.device, dtype: torch.dtype) -> Llama:
    started = time.perf_counter()
    with torch.device(device):
        model = Llama(plan.config)
    model = model.to(dtype)
    if args.weights is not None:
        from workloads.models.llama.checkpoint import load_dir

        load_dir(model, args.weights)
    else:
        model.init_random(args.seed)
    model.eval().requires_grad_(False)
    log(f"model: {plan.model}, {plan.config.parameter_count() / 1e6:,.1f}M parameters, "
        f"{weight_bytes_per_step(model) / 1e6:,.1f} MB read per decode step, built in "
        f"{time.perf_counter() - started:.1f} s")
    return model


def decode_mode(args: argparse.Namespace, device: torch.device) -> str:
    """The decoder the flags ask for; without one, compiled on a GPU (its CUDA graphs included: gpt-fast's way to the
    bandwidth bound) and eager elsewhere (on the CPU a compile costs minutes a cell and is asked for by --compile)."""
    if args.eager:
        return "eager"
    if args.cuda_graphs:
        return "cuda-graph"
    if args.compile or device.type == "cuda":
        return "compiled"
    return "eager"


def decoder_maker(args: argparse.Namespace, device: torch.device, emitter: Emitter):
    """make(model, cache) -> the decoder :func:`decode_mode` picks; eager, said once with a fallback event, when
    it cannot run (and eager from then on: a stack where compile failed once fails for every cache)."""
    failed: set[str] = set()

    def fall_back(op: str, error: str) -> None:
        if op not in failed:
            failed.add(op)
            emitter.fallback(error=error, action="eager decode", op=op)
            log(f"{op}: {error}; decoding eager")

    def make(model: Llama, cache: Any) -> Any:
        mode = decode_mode(args, device)
        if mode == "cuda-graph" and mode not in failed:
            if not dev.can_capture(device):
                fall_back("cuda-graph", f"graph capture needs a device type with graphs (cuda, npu, mlu, musa, xpu), "
                                        f"not {device.type}")
            else:
                try:
                    with torch.inference_mode():
                        return GraphDecoder(model, cache, cache.data.shape[2], device)
                except Exception as exc:  # noqa: BLE001 - capture failure is a fallback
                    fall_back("cuda-graph", first_line(exc, typed=True))
        if mode == "compiled" and mode not in failed:
            try:
                return CompiledDecoder(model, cache, device)
            except Exception as exc:  # noqa: BLE001 - a compile that fails on this stack is a fallback
                fall_back("compiled", first_line(exc, typed=True))
        return EagerDecoder(model, cache)

    make.failed = failed  # type: ignore[attr-defined] - what the result's decode figure says ran
    return make


def measure(args: argparse.Namespace, plan: Plan, device: torch.device, dtype: torch.dtype, emitter: Emitter,
            free: int | None) -> dict[str, Any]:
    if device.type == "cpu":
        _load_kernels(device, dtype)
    before = None if device.type == "cpu" else bandwidth.measure_read_bandwidth(device)
    memory = cells.Memory(device, _rss() if device.type == "cpu" else None)
    model = build(args, plan, device, dtype)
    make = decoder_maker(args, device, emitter)
    if device.type == "cpu":
        model.split_products(torch.get_num_threads())
        cache = model.new_cache(1, 40)
        tried = fastest_split(model, cache, EagerDecoder(model, cache), torch.zeros(1, 8, dtype=torch.long), 8,
                              cells.GREEDY, device)
        log("products split over " + " / ".join(f"{k} core(s): {v * 1000:.2f} ms a step" for k, v in tried.items())
            + f"; using {model.split}")
        del cache
    element_size = dtype.itemsize
    rows, sample_text = [], None
    for i, cell in enumerate(plan.cells):
        row = cells.run_cell(model, cell, args.repeat, device, args.seed + i, make, memory, free, element_size,
                             plan.prompt_ids)
        output_ids = row.pop("output_ids", None)
        rows.append(row)
        emitter.step(i + 1, throughput=row.get("decode_tokens_per_s_all"), unit="tokens/s",
                     step_s=row.get("tpot_p50_s"), memory_allocated_bytes=row.get("peak_memory_bytes"),
                     total_steps=steps(plan), cell=cell.label(), label=cell.label(), status=row["status"])
        log(f"cell {i + 1}/{len(plan.cells)} {cell.label()}: " + _row_line(row))
        if output_ids is not None:
            sample_text = plan.tokenizer.decode(output_ids)
            log(f"prompt: {plan.tokenizer.decode(list(plan.prompt_ids))!r}")
            log(f"generated (greedy, sequence 1): {sample_text!r}")
    bench = _llama_bench(args, plan, model, device, make, emitter)
    checked = fallback_check.check(args, plan, model, rows, device, emitter, make)   # after the timed work
    rounds = [bandwidth.measure_read_bandwidth(device)] + ([before] if before else [])
    read = bandwidth.best_of(rounds)
    rated = _rated_tflops(device, dtype)
    rated_gbps = _rated(device, "memory_gbps")
    for row in rows:
        cells.add_bounds(row, read.best_gbps, rated[0] if rated else None, rated_gbps)
    decode = _decode_ran(args, device, make)
    bench_bounds.identify(bench, plan, model, device, dtype, decode)
    bench_bounds.add(bench, model, read.best_gbps, rated_gbps, rated[0] if rated else None)
    for code, line in bench_bounds.past_bounds([*rows, *bench]):
        emitter.warning(line, code=code)
    m: dict[str, Any] = {**identity(plan), "parameters": plan.config.parameter_count(), "cells": rows,
                         "device_read_gbps": read.best_gbps, "bandwidth_method": read.method,
                         "rated_tflops": rated[0] if rated else None, "rated_source": rated[1] if rated else None,
                         "peak_memory_kind": memory.kind, "decode": decode,
                         "repeat": args.repeat, "bench": bench, "bench_output": plan.output.format,
                         **cells.by_name(bench), **checked}
    m.update(_headline(m, plan))
    if plan.prompt_ids is not None:
        m["sample_text"] = sample_text[:500] if sample_text is not None else None
    first = rows[0]
    if not plan.sweep:  # one cell: its figures are the run's
        m.update({k: v for k, v in first.items() if k not in ("input_len", "output_len", "batch")})
    if first.get("peak_memory_bytes"):
        m["fit_estimate_error"] = first["estimate_bytes"] / first["peak_memory_bytes"] - 1
    return m


def _llama_bench(args: argparse.Namespace, plan: Plan, model: Llama, device: torch.device, make: Any,
                 emitter: Emitter) -> list[dict[str, Any]]:
    """llama-bench's tests, each a step after the cells': progress without a rate (a pp and a tg rate are other
    figures than a cell's decode, and the live plot draws the steps' rates), so the ETA spans the tests too (the
    launcher said 'cell 1/1 ETA 0 ms' for the 25 s of pp512 and tg128)."""
    def done(j: int, row: dict[str, Any]) -> None:
        emitter.step(len(plan.cells) + j + 1, total_steps=steps(plan), label=row["test"], status="ok")

    return cells.llama_bench(model, plan.tests, args.repetitions, device, args.seed, make, done=done)


def _headline(m: dict[str, Any], plan: Plan) -> dict[str, Any]:
    """tg's and pp's figures of the first lengths asked for; none for a test --tg 0 / --pp 0 did not ask for, so no
    N/A figure leads the RESULT line."""
    out = {}
    if plan.tg:
        out["tg_tokens_per_s"] = m.get(f"tg{plan.tg}_tokens_per_s")
    if plan.pp:
        out["pp_tokens_per_s"] = m.get(f"pp{plan.pp}_tokens_per_s")
    return out


def _decode_ran(args: argparse.Namespace, device: torch.device, make: Any) -> str:
    """The decoder that ran: the one asked for, or eager where it fell back."""
    mode = decode_mode(args, device)
    return "eager" if mode in make.failed else mode


def _rated(device: torch.device, figure: str) -> float | None:
    """A rated figure of the device (rated.csv), None on the CPU or for a device it does not list."""
    if device.type == "cpu":
        return None
    found = lookup(dev.name(device))
    rated = found.get(figure) if found is not None else None
    return rated.value if rated is not None else None


def _rated_tflops(device: torch.device, dtype: torch.dtype) -> tuple[float, str] | None:
    if device.type == "cpu":
        return None
    precision = inference_dtype.NAMES[dtype]
    peak = rated_peak(dev.name(device), precision)   # matmuls: fp32 reads against plain FP32
    return (peak.value, f"{peak.device} {peak.figure} ({peak.source})") if peak else None


def _row_line(row: dict[str, Any]) -> str:
    if row["status"] != "ok":
        return row["status"]
    return (f"TTFT {row['ttft_s'] * 1000:.1f} ms, TPOT p50 {row['tpot_p50_s'] * 1000:.2f} ms "
            f"(p99 {row['tpot_p99_s'] * 1000:.2f}), {row['decode_tokens_per_s']:.1f} tokens/s per sequence, "
            f"{row['decode_tokens_per_s_all']:.1f} in all, prefill {row['prefill_tokens_per_s']:.0f} tokens/s, "
            f"peak memory {format_bytes(row['peak_memory_bytes'])} (estimate {format_bytes(row['estimate_bytes'])})")


def log_summary(m: dict[str, Any]) -> None:
    for name in [k[:-len("_tokens_per_s")] for k in m if re.fullmatch(r"(pp|tg)\d+_tokens_per_s", k)]:
        spread = against.spread_of(m, name)[1]
        log(f"{name}: {m[name + '_tokens_per_s']:.1f}" + (f" +- {spread:.1f}" if spread is not None else "")
            + " tokens/s (llama-bench's test, mean +- stddev)")
    log(f"measured read bandwidth {m['device_read_gbps']:.1f} GB/s ({m['bandwidth_method']})")
    for line in cells_table.lines(m) + cell_tables.lines(m):   # the cells as the report's tables say them, last
        log(line)
