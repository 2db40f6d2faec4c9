"""The finetune workload's tokens/s against a bare PyTorch training loop of the same model and settings.

Both train the llm workload's Llama model (same preset, seed, LoRA adapters or full weights, AdamW, the
same synthetic batches, autocast dtype and thread count) in this one process, alternating for a few
rounds. The workload does its per-step synchronisation, loss read, memory read and step event (JSON to
/dev/null); the bare loop runs forward, cross-entropy, backward and AdamW and reads the clock. Each side's
figure is the median tokens/s per step after the warm-up; the ratio printed is workload / bare, the median
over the rounds (goal: at least 0.95), for full fine-tuning and for LoRA.

    python bench/finetune_vs_bare_loop.py                      # tiny preset on the CPU, a few minutes on 2 cores
    python bench/finetune_vs_bare_loop.py --device cuda --model Llama-3.2-1B --amp bf16 --seq-len 2048 --batch-size 8
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from workloads.child import device as devices  # noqa: E402
from workloads.child.harness import Emitter  # noqa: E402
from workloads.finetune import cli, data, lora  # noqa: E402
from workloads.finetune.flops import TARGETS  # noqa: E402
from workloads.finetune.step import lm_loss  # noqa: E402
from workloads.llm.model import Llama  # noqa: E402
from workloads.llm.presets import preset  # noqa: E402


class Recorder(Emitter):
    def __init__(self) -> None:
        super().__init__(stream=open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
        self.metrics: dict = {}

    def result(self, metrics: dict) -> None:
        self.metrics = metrics
        super().result(metrics)


def workload(opts: argparse.Namespace, mode: str) -> float:
    argv = ["--model", opts.model, "--mode", mode, "--device", opts.device, "--steps", str(opts.steps),
            "--batch-size", str(opts.batch_size), "--seq-len", str(opts.seq_len), "--amp", opts.amp,
            "--warmup", str(opts.warmup)]
    rec = Recorder()
    with contextlib.redirect_stderr(io.StringIO()):
        cli.main(rec, argv)
    return rec.metrics["tokens_per_s"]


def bare(opts: argparse.Namespace, mode: str) -> float:
    device = devices.resolve(opts.device)
    config = preset(opts.model)
    with torch.device(device):
        model = Llama(config)
    model.init_random(0)
    torch.manual_seed(0)
    if mode == "lora":
        lora.apply(model, TARGETS, 16, 32.0, 0.0)
        if opts.amp == "bf16":  # as the workload: a frozen base is held in the autocast dtype
            lora.hold_frozen_in(model, torch.bfloat16)
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    batches = data.synthetic(config.vocab_size, opts.batch_size, opts.seq_len, 0)
    dtype = devices.autocast_dtype(opts.amp)
    rates = []
    for step in range(1, opts.steps + 1):
        tokens = batches.batch_of(step).to(device)
        t0 = devices.now(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            loss = lm_loss(model, tokens)
        loss.backward()
        optimizer.step()
        t1 = devices.now(device)
        if step > opts.warmup:
            rates.append(opts.batch_size * opts.seq_len / (t1 - t0))
    return statistics.median(rates)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny")
    p.add_argument("--device", default="cpu")
    p.add_argument("--amp", default="off", choices=("off", "fp16", "bf16"))
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--modes", default="full,lora", help="full, lora or both (default both)")
    opts = p.parse_args()
    print(f"{opts.model} on {opts.device}, batch {opts.batch_size} x {opts.seq_len} tokens, amp {opts.amp}, "
          f"{opts.steps} steps ({opts.warmup} warm-up) x {opts.rounds} rounds, {torch.get_num_threads()} threads")
    for mode in opts.modes.split(","):
        ratios, ours, theirs = [], [], []
        for _ in range(opts.rounds):
            t0 = time.perf_counter()
            if len(ratios) % 2:  # every other round the bare loop goes first, so neither side always warms the other
                b, w = bare(opts, mode), workload(opts, mode)
            else:
                w, b = workload(opts, mode), bare(opts, mode)
            ours.append(w)
            theirs.append(b)
            ratios.append(w / b)
            print(f"  {mode}: workload {w:.1f} tokens/s, bare {b:.1f} tokens/s, ratio {w / b:.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        print(f"{mode}: workload / bare = {statistics.median(ratios):.3f} (median of {opts.rounds} rounds; best "
              f"rounds {max(ours):.1f} / {max(theirs):.1f} = {max(ours) / max(theirs):.3f}); goal >= 0.95")


if __name__ == "__main__":
    main()
