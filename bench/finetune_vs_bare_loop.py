"""The finetune workload's tokens/s against a bare PyTorch training loop of the same model and settings.

Both train the llm workload's Llama model (same preset, seed, LoRA adapters or full weights, AdamW with the
same learning rate, the same synthetic batches, autocast dtype and thread count) in this one process. The
workload runs its own steps (workloads/finetune/train.py, ``Loop.run_step``: the batch cut and copied, the
step, the synchronisation, the loss read, the memory read and the step event, as JSON to /dev/null); the bare
loop runs zero_grad, forward, cross-entropy, backward and AdamW between two clock reads.

Noise: on a shared machine the load changes from one second to the next, so the two sides are interleaved
step by step (which goes first alternates), each step timed from outside with the device synchronised, and
the ratio is taken per pair of neighbouring steps: the figure printed is the median of those ratios (bare
time / workload time = workload tokens/s / bare tokens/s) over every round's steps after the warm-up (goal:
at least 0.95), with the same ratio of the process's CPU seconds per step beside it (less sensitive to other
processes' load). ``--profile`` prints each side's heaviest functions (cProfile) to show where a step's time
goes.

    python bench/finetune_vs_bare_loop.py                      # tiny preset on the CPU, a few minutes on 2 cores
    python bench/finetune_vs_bare_loop.py --device cuda --model Llama-3.2-1B --amp bf16 --seq-len 2048 --batch-size 8
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from workloads.child import device as devices  # noqa: E402
from workloads.child.harness import Emitter  # noqa: E402
from workloads.finetune import data, train  # noqa: E402
from workloads.finetune.options import build_parser, check  # noqa: E402
from workloads.finetune.step import built_whole  # noqa: E402
from workloads.models.loss import lm_loss  # noqa: E402
from workloads.models.llama.presets import LlamaConfig  # noqa: E402


def arguments(opts: argparse.Namespace, mode: str) -> tuple[argparse.Namespace, LlamaConfig]:
    """The workload's options, parsed and checked as ``cardbench run finetune`` does."""
    argv = ["--model", opts.model, "--mode", mode, "--device", opts.device, "--steps", str(opts.steps),
            "--batch-size", str(opts.batch_size), "--seq-len", str(opts.seq_len), "--amp", opts.amp,
            "--warmup", str(opts.warmup)] + (["--threads", str(opts.threads)] if opts.threads else [])
    args = build_parser().parse_args(argv)
    return args, check(args)


def workload(opts: argparse.Namespace, mode: str) -> train.Loop:
    """The workload's loop, built as ``cardbench run finetune`` builds it, its events written to /dev/null."""
    args, config = arguments(opts, mode)
    with contextlib.redirect_stderr(io.StringIO()):  # its run log
        return train.prepare(Emitter(stream=open(os.devnull, "w", encoding="utf-8")), args, config)  # noqa: SIM115


class Bare:
    """The same model, adapters, optimiser and batches, stepped with nothing around the step."""

    def __init__(self, opts: argparse.Namespace, mode: str, lr: float):
        self.device = devices.resolve(opts.device)
        args, config = arguments(opts, mode)
        # the workload's own build (weights, adapters, a frozen base in bf16 under --amp bf16): the same model
        self.model, _ = built_whole(config, args, self.device)
        self.model.train()
        self.optimizer = torch.optim.AdamW([p for p in self.model.parameters() if p.requires_grad], lr=lr)
        self.batches = data.synthetic(config.vocab_size, opts.batch_size, opts.seq_len, 0)
        self.dtype = devices.autocast_dtype(opts.amp)

    def run_step(self, number: int) -> None:
        tokens = self.batches.batch_of(number).to(self.device)
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
            loss = lm_loss(self.model, tokens)
        loss.backward()
        self.optimizer.step()


def timed(side: object, number: int, device: torch.device) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one step, the device synchronised before each clock read."""
    devices.synchronize(device)
    w0, c0 = time.perf_counter(), time.process_time()
    side.run_step(number)  # type: ignore[attr-defined]
    t = devices.now(device)
    return t - w0, time.process_time() - c0


def one_round(opts: argparse.Namespace, mode: str) -> tuple[list[float], list[float], list[float], list[float]]:
    """Per step after the warm-up: wall ratios, CPU ratios (bare / workload), workload and bare tokens/s."""
    ours = workload(opts, mode)
    theirs = Bare(opts, mode, ours.s.lr)   # the workload's learning rate, whatever its default
    device = theirs.device
    tokens = opts.batch_size * opts.seq_len
    wall, cpu, w_rates, b_rates = [], [], [], []
    for number in range(1, opts.steps + 1):
        if number % 2:
            (ww, wc), (bw, bc) = timed(ours, number, device), timed(theirs, number, device)
        else:
            (bw, bc), (ww, wc) = timed(theirs, number, device), timed(ours, number, device)
        if number > opts.warmup:
            wall.append(bw / ww)
            cpu.append(bc / wc)
            w_rates.append(tokens / ww)
            b_rates.append(tokens / bw)
    return wall, cpu, w_rates, b_rates


def profile(opts: argparse.Namespace, mode: str) -> None:
    """Each side's heaviest functions over the steps after the warm-up (cProfile, own time)."""
    device = devices.resolve(opts.device)
    ours = workload(opts, mode)
    for name, side in (("workload", ours), ("bare", Bare(opts, mode, ours.s.lr))):
        for number in range(1, opts.warmup + 1):
            side.run_step(number)
        prof = cProfile.Profile()
        prof.enable()
        for number in range(opts.warmup + 1, opts.steps + 1):
            side.run_step(number)
        devices.synchronize(device)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
        print(f"--- {mode}, {name}: {opts.steps - opts.warmup} steps ---")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:4000])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny")
    p.add_argument("--device", default="cpu")
    p.add_argument("--amp", default="off", choices=("off", "fp16", "bf16"))
    p.add_argument("--steps", type=int, default=10, help="steps per round, each side (default 10)")
    p.add_argument("--warmup", type=int, default=2, help="first steps of a round left out (default 2)")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--rounds", type=int, default=2, help="fresh models per mode (default 2)")
    p.add_argument("--modes", default="full,lora", help="full, lora or both (default both)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch CPU threads of both sides (default torch's); 1 steadies the figures on a loaded CPU, "
                        "where a thread waits at each parallel region's barrier for a sibling descheduled")
    p.add_argument("--profile", action="store_true", help="print where each side's step time goes, then stop")
    opts = p.parse_args()
    if opts.threads:
        torch.set_num_threads(opts.threads)  # the workload sets the same in its Setup; the bare loop runs in this process
    print(f"{opts.model} on {opts.device}, batch {opts.batch_size} x {opts.seq_len} tokens, amp {opts.amp}, "
          f"{opts.steps} steps ({opts.warmup} warm-up) x {opts.rounds} rounds, {torch.get_num_threads()} threads, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for mode in opts.modes.split(","):
        if opts.profile:
            profile(opts, mode)
            continue
        wall, cpu, w_rates, b_rates = [], [], [], []
        for _ in range(opts.rounds):
            t0 = time.perf_counter()
            r = one_round(opts, mode)
            for into, values in zip((wall, cpu, w_rates, b_rates), r):
                into.extend(values)
            print(f"  {mode} round: workload {statistics.median(r[2]):.1f} tokens/s, bare "
                  f"{statistics.median(r[3]):.1f} tokens/s, per-step ratio {statistics.median(r[0]):.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        lo, hi = (statistics.quantiles(wall, n=4)[i] for i in (0, 2)) if len(wall) > 1 else (wall[0], wall[0])
        print(f"{mode}: workload / bare tokens/s = {statistics.median(wall):.3f} (median of {len(wall)} neighbouring "
              f"step pairs, quartiles {lo:.3f}-{hi:.3f}; CPU seconds per step: {statistics.median(cpu):.3f}); "
              f"goal >= 0.95; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
