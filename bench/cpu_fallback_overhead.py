"""What the CPU fallback check costs the steps it watches, and that it is off after them (issue 38: at most 5 %).

The check (`workloads.child.cpu_fallback.FallbackWatch`) runs torch.profiler (host ops, no shapes) over a
few steps after the warm-up. Here the same steps run without it and under it, alternately, in this one process:
each round times ``--steps`` steps bare, then the same number watched (a fresh watch, forced on: on the CPU the
workloads leave it off), then as many again after the watch ended. A step's time runs from the watch's ``before``
to the step's end (the profiler's start is in the first watched step); the watch's stop, its trace export and the
classification come after the last watched step and are printed apart (once a run, no step's time: the loops
restart their clock after it). The ratio is watched / bare, median over the rounds; bound 1.05, judged on the
process's CPU time (the profiler's work is there, a neighbour's is not; the wall clock is printed beside it).

Two steps: a ResNet-18 training step (torchvision, 32 px, batch 8: hundreds of ops of a millisecond or so) and a
decode step of the llm workload's ``tiny`` Llama (some 800 recorded ops of microseconds: the profiler's cost per op
is the largest share of a step there is).

    python bench/cpu_fallback_overhead.py                 # the CPU, a few minutes on 2 cores
    python bench/cpu_fallback_overhead.py --decode-model Qwen2.5-0.5B   # a real model's decode step
    python bench/cpu_fallback_overhead.py --device cuda   # the same on a card (the device's activities recorded too)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from workloads.child import device as devices  # noqa: E402
from workloads.child.cpu_fallback import FallbackWatch  # noqa: E402
from workloads.models.llama.model import Llama  # noqa: E402
from workloads.models.llama.presets import PRESETS  # noqa: E402

BOUND = 1.05


def resnet18_step(device: torch.device) -> Callable[[], None]:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images, labels = torch.randn(8, 3, 32, 32, device=device), torch.randint(0, 10, (8,), device=device)

    def step() -> None:
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return step


def llama_decode_step(device: torch.device, preset: str = "tiny") -> Callable[[], None]:
    model = Llama(PRESETS[preset]).to(device)
    model.init_random(0)
    model.eval().requires_grad_(False)
    cache = model.new_cache(1, 64)
    token = torch.zeros(1, 1, dtype=torch.long, device=device)

    @torch.inference_mode()
    def step() -> None:
        model(token, cache, 32)
    return step


def timed(step: Callable[[], None], device: torch.device, n: int, watch: FallbackWatch | None) -> list[float]:
    """Each of ``n`` steps' (wall, CPU) seconds, from the watch's ``before`` to the device synchronised after the
    step; the CPU time is this process's (all its threads): the profiler's work is there, another job's is not."""
    out = []
    for i in range(1, n + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        if watch is not None:
            watch.before(i)
        step()
        devices.synchronize(device)
        out.append((time.perf_counter() - t0, time.process_time() - c0))
        if watch is not None:
            t1 = time.perf_counter()
            watch.after(i)
            watch.read_s = time.perf_counter() - t1   # the last one stops, exports and classifies
    return out


@dataclass
class Round:
    bare: tuple[float, float]       # mean (wall, CPU) seconds a step
    watched: tuple[float, float]
    after: tuple[float, float]
    read_s: float                   # the watch's stop, export and classification
    events: float                   # host events recorded a step
    on_after: bool                  # the profiler still on after the watch


def _mean(times: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.fmean(t[0] for t in times), statistics.fmean(t[1] for t in times)


def one_round(step: Callable[[], None], device: torch.device, n: int) -> Round:
    bare = timed(step, device, n, None)
    watch = FallbackWatch(device, None, "on", after=0, steps=n)
    watched = timed(step, device, n, watch)
    assert watch.findings is not None and watch.watched == n, "the watch did not see its steps"
    after = timed(step, device, n, None)
    return Round(_mean(bare), _mean(watched), _mean(after), watch.read_s, watch.findings.host_events_per_step,
                 torch._C._autograd._profiler_enabled())


def measure(name: str, step: Callable[[], None], device: torch.device, n: int, rounds: int) -> bool:
    for _ in range(3):
        step()   # warm-up: the kernels, the allocator
    first = one_round(step, device, n)   # left out: the process's first profiler start initialises Kineto
    results = [one_round(step, device, n) for _ in range(rounds)]
    still_on = any(r.on_after for r in results)
    print(f"{name}: {n} steps a round, {rounds} rounds, {device}, {torch.get_num_threads()} threads, "
          f"load average {os.getloadavg()[0]:.1f}")
    verdict = True
    for k, clock in ((1, "CPU time of the process"), (0, "wall time")):
        ratios = [r.watched[k] / r.bare[k] for r in results]
        ratio = statistics.median(ratios)
        verdict &= ratio <= BOUND or k == 0   # the wall clock is printed, the process's CPU time is judged
        print(f"  {clock}: a step {statistics.median(r.bare[k] for r in results) * 1000:.2f} ms bare, "
              f"{statistics.median(r.watched[k] for r in results) * 1000:.2f} ms watched: ratio {ratio:.3f} "
              f"(rounds {min(ratios):.3f}-{max(ratios):.3f}; bound {BOUND:.2f}: {'within' if ratio <= BOUND else 'OVER'})"
              f"; the steps after the watch {statistics.median(r.after[k] / r.bare[k] for r in results):.3f}")
    events = statistics.median(r.events for r in results)
    extra_us = statistics.median((r.watched[1] - r.bare[1]) * 1e6 for r in results)
    print(f"  {events:.0f} host events recorded a step: {extra_us / events:.2f} us of the process's CPU time each")
    print(f"  profiler on after the watch: {'YES' if still_on else 'no'}; stopping it, exporting and classifying its "
          f"trace (once, after the watched steps): {statistics.median(r.read_s for r in results) * 1000:.0f} ms; "
          f"the process's first watch (Kineto's start-up, left out above) "
          f"{(first.watched[0] - first.bare[0]) * n * 1000:+.0f} ms over its {n} steps")
    return verdict and not still_on


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--steps", type=int, default=3, help="steps a round, watched and not (default 3, the workloads')")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads (default 1: a waiting OpenMP thread spins, and on a shared host its spinning "
                        "would be counted as the process's CPU time)")
    p.add_argument("--decode-model", default="tiny", choices=sorted(PRESETS),
                   help="the preset whose decode step is watched (default tiny: the most profiler cost a step there is; "
                        "a real model's ops are longer, its share smaller)")
    opts = p.parse_args()
    torch.set_num_threads(opts.threads)
    device = devices.resolve(opts.device)
    ok = measure("ResNet-18 training step (32 px, batch 8)", resnet18_step(device), device, opts.steps, opts.rounds)
    ok &= measure(f"{opts.decode_model} Llama decode step", llama_decode_step(device, opts.decode_model), device,
                  opts.steps, opts.rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
