"""The microbench's figures against bare PyTorch in the same process: its GEMM, and its memory against the probe.

    python bench/microbench_gemm_vs_mm.py                         # the CPU, fp32, 5 rounds
    python bench/microbench_gemm_vs_mm.py --device cuda --dtype bf16

Goals (issue 12):
- GEMM: at the workload's best size, its figure (the harness: timing.time_calls around the same
  ``torch.mm(a, b, out=c)``) is at least 85 % of a bare ``torch.mm`` loop timed in the same rounds. The
  two alternate, round by round (the same number of batches of the same number of calls), so a busy
  moment on the host costs both. The goal is judged on the medians, which the shared load moves alike
  and which isolate the harness's cost; the best of each is printed beside them (on a loaded host one
  lucky batch sets it).
- Memory: the workload's read-only figure is within 20 % of the workload's own read-bandwidth probe
  (workloads/child/bandwidth.py: the sum of a tensor 8x the last-level cache) on the same buffer. Each
  round times the workload's three kinds, then the probe; the goal is judged on the median of the
  rounds' read / probe (a pair measured back to back shares the host's load), the best of each printed
  beside it. The
  copy and fill figures are printed beside it: they move other traffic (a CPU reads each line it writes),
  so they are not held to the probe.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")  # as the workload runs (workloads/microbench/cli.py)

import torch  # noqa: E402

from workloads.child import device as dev  # noqa: E402
from workloads.microbench import gemm, memory  # noqa: E402
from workloads.microbench.timing import time_calls  # noqa: E402

GEMM_GOAL, MEMORY_GOAL = 0.85, 0.20


def bare_mm(dtype: str, n: int, device: torch.device, calls: int, batches: int) -> list[float]:
    """Seconds per call of plain loops of torch.mm(a, b, out=c) (as many batches and calls as the harness timed),
    the device synchronised around each batch."""
    kind = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(dtype, torch.float32)
    a = torch.randn(n, n, device=device, dtype=kind)
    b = torch.randn(n, n, device=device, dtype=kind)
    c = torch.empty(n, n, device=device, dtype=kind)
    for _ in range(2):
        torch.mm(a, b, out=c)
    seconds = []
    for _ in range(batches):
        dev.synchronize(device)
        start = time.perf_counter()
        for _ in range(calls):
            torch.mm(a, b, out=c)
        dev.synchronize(device)
        seconds.append((time.perf_counter() - start) / calls)
    return seconds


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="auto")
    p.add_argument("--dtype", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--max-size", type=int, default=None, help="largest GEMM side of the sweep (default: the workload's)")
    args = p.parse_args()
    device = dev.resolve(args.device)
    cpu = device.type == "cpu"
    max_size = args.max_size or (2048 if cpu else 16384)
    print(f"device: {dev.name(device)}")

    with gemm.matmul_precision(args.dtype):
        swept = gemm.sweep(args.dtype, device, start=256 if cpu else 1024, max_size=max_size, max_call_s=1.0)
        if swept.skipped:
            print(f"{args.dtype}: skipped: {swept.skipped}")
            return 1
        n = swept.best["n"]
        print(f"workload sweep ({args.dtype}): " + ", ".join(f"n={s['n']} {s['best']:.4g}" for s in swept.sizes)
              + f" TFLOP/s best; best size {n} ({swept.stop})")
        flop = 2 * n ** 3
        call = gemm.operands(args.dtype, n, device)
        harness, bare = [], []
        for _ in range(args.rounds):
            timed = time_calls(call, device)
            harness += [flop / s / 1e12 for s in timed.seconds]
            bare += [flop / s / 1e12 for s in bare_mm(args.dtype, n, device, timed.calls_per_batch, len(timed.seconds))]
    ratio = statistics.median(harness) / statistics.median(bare)
    print(f"GEMM {args.dtype} n={n}, {args.rounds} rounds: workload {max(harness):.4g} TFLOP/s best "
          f"(median {statistics.median(harness):.4g}), bare torch.mm loop {max(bare):.4g} best "
          f"(median {statistics.median(bare):.4g}): ratio {ratio:.3f} median against median, "
          f"{max(harness) / max(bare):.3f} best against best "
          f"(goal >= {GEMM_GOAL}): {'PASS' if ratio >= GEMM_GOAL else 'FAIL'}")

    nbytes = memory.buffer_bytes(device, None)
    rounds = [memory.measure(device, nbytes) for _ in range(args.rounds)]   # each round: the kinds, then the probe
    best = {k: max(r["kinds"][k]["best_gbps"] for r in rounds) for k in memory.KINDS}
    probe = max(r["probe_read_gbps"] for r in rounds)
    read_vs = statistics.median(r["read_vs_probe"] for r in rounds)
    print(f"memory, {nbytes / 2**20:.0f} MiB buffer, best of {args.rounds} rounds: copy {best['copy']:.1f}, read "
          f"{best['read']:.1f}, fill {best['fill']:.1f} GB/s; the workload's probe ({rounds[0]['probe_method']}) "
          f"{probe:.1f} GB/s (best against best: read at {best['read'] / probe * 100:.0f} %); read / probe, median "
          f"of the rounds: {read_vs * 100:.0f} % (goal within {MEMORY_GOAL * 100:.0f} %): "
          f"{'PASS' if abs(read_vs - 1) <= MEMORY_GOAL else 'FAIL'}; each round's: "
          + ", ".join(f"{r['read_vs_probe'] * 100:.0f} %" for r in rounds))
    return 0 if ratio >= GEMM_GOAL and abs(read_vs - 1) <= MEMORY_GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
