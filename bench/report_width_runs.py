"""The runs `bench/report_width.py` exports when it is given no report: an LLM readiness sweep (the report's widest
table, 17 columns) and a short ResNet-50 run, made by hand as a card's runs leave them (no torch, no model)."""

from __future__ import annotations

import math
import time
from pathlib import Path

from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol

GIB = 2**30
FREE = 22 * GIB   # what the card had free: the sweep's largest cells do not fit, and say so in a long cell
READ_BPS, PEAK_TFLOPS, STEP_BYTES = 3.0e12, 989.0, 15.2e9   # an H100's read bandwidth and bf16 peak; a 7B in bf16


def _cell(input_len: int, output_len: int, batch: int) -> dict:
    """One sweep cell's row, its figures as a 7B model on an H100 gives them (roughly); the largest do not fit."""
    row = {"input_len": input_len, "output_len": output_len, "batch": batch,
           "estimate_bytes": int((15.3 + 0.000131 * batch * (input_len + output_len)) * GIB)}
    if row["estimate_bytes"] > FREE:   # the words of workloads/llm/cells.py
        return {**row, "status": f"does not fit: needs about {row['estimate_bytes'] / GIB:.1f} GiB, "
                                 f"{FREE / GIB:.1f} GiB free"}
    tpot = 0.0061 + 0.00012 * batch + 0.0000004 * batch * input_len
    ttft = 0.009 + batch * input_len / 11800.0
    return {**row, "status": "ok", "ttft_s": ttft, "tpot_p50_s": tpot, "tpot_p90_s": tpot * 1.04,
            "tpot_p99_s": tpot * 1.21, "decode_tokens_per_s": 1 / tpot, "decode_tokens_per_s_all": batch / tpot,
            "decode_bound_tokens_per_s": READ_BPS / STEP_BYTES, "decode_bandwidth_fraction": STEP_BYTES / tpot / READ_BPS,
            "prefill_tokens_per_s": batch * input_len / ttft, "prefill_tflops": 14.2 * batch * input_len / ttft / 1e3,
            "prefill_peak_fraction": 14.2 * batch * input_len / ttft / 1e3 / PEAK_TFLOPS,
            "end_to_end_s": ttft + output_len * tpot, "peak_memory_bytes": int(row["estimate_bytes"] * 0.93)}


def llm_run(store: RunStore, t0: float) -> Path:
    cells = [_cell(i, o, b) for i in (128, 1024, 2048) for o in (128, 1024) for b in (1, 8, 32)]
    run = store.create("llm", ["--model", "Qwen2.5-7B", "--sweep", "--cuda-graphs"])
    run.append(protocol.Start(t=t0, workload="llm", device="NVIDIA H100 80GB HBM3"))
    for i, c in enumerate(cells, 1):
        if c["status"] == "ok":
            run.append(protocol.Step(t=t0 + i, step=i, throughput=c["decode_tokens_per_s"], unit="tokens/s"))
    first = cells[0]
    run.append(protocol.Result(t=t0 + len(cells) + 1, metrics={
        "model_size": "Qwen2.5-7B", "sweep": "128,1024,2048 x 128,1024 x 1,8,32", "decode": "cuda graphs",
        "peak_memory_kind": "torch.cuda.max_memory_allocated, reset before each cell", "dtype": "bf16",
        "decode_tokens_per_s": first["decode_tokens_per_s"], "peak_memory_bytes": first["peak_memory_bytes"],
        "cells": cells}))
    run.append(protocol.End(t=t0 + len(cells) + 2, status="ok", exit_code=0))
    run.close()
    return run.path


def resnet_run(store: RunStore, t0: float) -> Path:
    run = store.create("resnet50", ["--steps", "12", "--batch-size", "128", "--amp", "bf16"])
    run.append(protocol.Start(t=t0, workload="resnet50", device="NVIDIA H100 80GB HBM3"))
    for i in range(1, 13):
        run.append(protocol.Step(t=t0 + i, step=i, loss=6.9 * math.exp(-i / 8), throughput=2900.0 + 10 * i,
                                 unit="images/s"))
    run.append(protocol.Result(t=t0 + 13, metrics={"images_per_s": 2990.0, "final_loss": 1.55, "precision": "bf16",
                                                  "batch_size": 128}))
    run.append(protocol.End(t=t0 + 14, status="ok", exit_code=0))
    run.close()
    return run.path


def build_bundles(into: Path) -> list[Path]:
    """An English and a Chinese bundle of those runs, with this machine's doctor checks and environment."""
    store = RunStore(into / "runs")
    t0 = time.time() - 60
    runs = (llm_run(store, t0), resnet_run(store, t0 + 30))
    return [export_bundle(ExportInputs(runs, into / f"out-{lang}", lang=lang)) for lang in ("en", "zh")]
