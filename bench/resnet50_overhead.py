"""What the ResNet-50 workload's instrumentation costs: its images/s against a bare PyTorch training loop.

Both loops train the same model (torchvision ResNet-50, same seed, SGD with
momentum) on the same synthetic batch, at the same batch size, image size,
precision, memory format and thread count, in this one process. The bare loop
synchronises only before and after its timed steps; the workload does its
per-step synchronisation, loss read, memory read, event (JSON, written to
/dev/null) and log line. The two alternate for a few rounds; each side's
throughput is images over wall time after the warm-up, and the ratio is
workload / bare, median over the rounds (goal: at least 0.97); the ratio of
the two sides' best rounds is printed beside it, as a check on a busy machine.

    python bench/resnet50_overhead.py                        # CPU-sized defaults, a few minutes on 2 cores
    python bench/resnet50_overhead.py --device cuda --amp bf16 --channels-last --image-size 224 --batch-size 256
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import torchvision  # noqa: E402

from workloads import protocol  # noqa: E402
from workloads.child import device as devices  # noqa: E402
from workloads.child.harness import Emitter  # noqa: E402
from workloads.resnet50 import baselines as resnet50_baselines  # noqa: E402
from workloads.resnet50.loop import Training  # noqa: E402
from workloads.resnet50.options import build_parser  # noqa: E402
from workloads.resnet50.setup import Setup  # noqa: E402


class StepRecorder(Emitter):
    """Serialises every event like the real emitter (to /dev/null) and keeps the step events."""

    def __init__(self) -> None:
        super().__init__(stream=open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
        self.steps: list[protocol.Step] = []

    def emit(self, event: protocol.Event) -> None:
        super().emit(event)
        if isinstance(event, protocol.Step):
            self.steps.append(event)


def bare_loop(opts: argparse.Namespace, device: torch.device) -> tuple[float, list[float]]:
    """(images over wall time after the warm-up, each step's images/s where reading the clock is free)."""
    torch.manual_seed(opts.seed)
    fmt = torch.channels_last if opts.channels_last else torch.preserve_format
    model = torchvision.models.resnet50(weights=None, num_classes=1000).to(device, memory_format=fmt)
    lr = 0.1 * opts.batch_size / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    criterion = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(opts.seed)
    images = torch.randn(opts.batch_size, 3, opts.image_size, opts.image_size, generator=generator)
    labels = torch.randint(0, 1000, (opts.batch_size,), generator=generator)
    images = images.to(device).contiguous(memory_format=fmt)
    labels = labels.to(device)
    dtype = devices.autocast_dtype(opts.amp)
    scaler = torch.amp.GradScaler(device.type, enabled=opts.amp == "fp16")

    def step() -> None:
        with torch.autocast(device.type, dtype=dtype) if dtype else contextlib.nullcontext():
            loss = criterion(model(images), labels)
        optimizer.zero_grad(set_to_none=True)
        if opts.amp == "fp16":
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()

    for _ in range(opts.warmup):
        step()
    per_step: list[float] = []
    t0 = devices.now(device)
    if device.type == "cpu":  # no queue to drain: the clock alone times each step, at no cost
        last = t0
        for _ in range(opts.steps):
            step()
            now = time.perf_counter()
            per_step.append(opts.batch_size / (now - last))
            last = now
    else:  # on an accelerator a per-step clock would need a synchronisation: time the block only
        for _ in range(opts.steps):
            step()
    t1 = devices.now(device)
    return opts.steps * opts.batch_size / (t1 - t0), per_step


def workload_loop(opts: argparse.Namespace) -> tuple[float, list[float], float]:
    """(images over wall time after the warm-up, each step's images/s, the workload's own median)."""
    argv = ["--device", opts.device, "--image-size", str(opts.image_size), "--batch-size", str(opts.batch_size),
            "--amp", opts.amp, "--steps", str(opts.warmup + opts.steps), "--warmup", str(opts.warmup),
            "--epochs", "1", "--epoch-size", str(opts.batch_size * (opts.warmup + opts.steps)),
            "--seed", str(opts.seed), "--threads", str(opts.threads)]
    if opts.channels_last:
        argv.append("--channels-last")
    args = build_parser().parse_args(argv)
    recorder = StepRecorder()
    with contextlib.redirect_stderr(io.StringIO()):  # its log lines are formatted, then dropped
        setup = Setup(args, recorder)
        try:
            metrics = Training(setup).run()
        finally:
            setup.close()
    timed = recorder.steps[opts.warmup:]
    images = opts.batch_size * len(timed)
    seconds = sum(s.step_s for s in timed)
    return images / seconds, [s.throughput for s in timed], metrics["images_per_s"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu")
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--steps", type=int, default=20, help="timed steps per loop, after the warm-up")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=5, help="bare and workload loops alternate this many times")
    p.add_argument("--amp", choices=("off", "fp16", "bf16"), default="off")
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="also print the figures as one JSON object")
    opts = p.parse_args()
    torch.set_num_threads(opts.threads)
    device = devices.resolve(opts.device)
    opts.device = str(device)
    name = devices.name(device)
    precision = "fp32" if opts.amp == "off" else opts.amp
    print(f"ResNet-50 training, {name}: batch {opts.batch_size}, {opts.image_size} px, {precision}"
          f"{', channels-last' if opts.channels_last else ''}, {opts.threads} threads, "
          f"{opts.steps} timed steps after {opts.warmup} warm-up, {opts.rounds} rounds")
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if device.type == "cpu" and load > cores / 2:
        print(f"note: load average {load:.1f} on {cores} cores: other processes compete, so rounds will scatter "
              f"({'--threads 1 steadies them' if opts.threads > 1 else 'the median and best-round figures help'})")
    print(f"{'round':>5}  {'bare images/s':>14}  {'workload images/s':>18}  {'ratio':>6}")
    bare, work, reported, ratios = [], [], [], []
    bare_steps: list[float] = []
    work_steps: list[float] = []
    for i in range(opts.rounds):
        order = ("bare", "workload") if i % 2 == 0 else ("workload", "bare")
        for which in order:
            gc.collect()
            if which == "bare":
                rate, steps = bare_loop(opts, device)
                bare.append(rate)
                bare_steps += steps
            else:
                rate, steps, median = workload_loop(opts)
                work.append(rate)
                work_steps += steps
                reported.append(median)
        ratios.append(work[-1] / bare[-1])
        print(f"{i + 1:>5}  {bare[-1]:>14.2f}  {work[-1]:>18.2f}  {ratios[-1]:>6.3f}")
    ratio = statistics.median(ratios)
    best = max(work) / max(bare)  # each side's fastest round: the one least slowed by other processes
    verdict = "meets" if ratio >= 0.97 else "MISSES"
    print(f"median  bare {statistics.median(bare):.2f} images/s, workload {statistics.median(work):.2f} images/s "
          f"(its own median-of-steps figure: {statistics.median(reported):.2f})")
    print(f"ratio   {ratio:.3f} median of rounds ({verdict} the goal of >= 0.97); "
          f"{best:.3f} best round against best round")
    step_ratio = None
    if bare_steps:  # CPU: the median step of each side, pooled over rounds, shrugs off bursts of other load
        step_ratio = statistics.median(work_steps) / statistics.median(bare_steps)
        print(f"steps   median step: bare {statistics.median(bare_steps):.2f} images/s, workload "
              f"{statistics.median(work_steps):.2f} images/s, ratio {step_ratio:.3f}")
    bound = resnet50_baselines.bounds(statistics.median(work), opts.image_size, name, precision)
    if bound["achieved_tflops"] is not None:
        peak = f" of a {bound['peak_tflops']} TFLOP/s peak ({100 * bound['flop_utilisation']:.1f} %)" \
            if bound["peak_tflops"] else " (no peak figure known for this device)"
        print(f"compute: {bound['gflop_per_image']:.2f} GFLOP per training image -> "
              f"{bound['achieved_tflops']:.3f} TFLOP/s{peak}")
    if device.type != "cpu":
        published = ", ".join(f"{k}: {v:.0f} images/s" for k, v in resnet50_baselines.PUBLISHED_IMAGES_PER_S.items())
        print(f"published at 224 px: {published}")
    if opts.json:
        print(json.dumps({"device": name, "batch_size": opts.batch_size, "image_size": opts.image_size,
                          "precision": precision, "channels_last": opts.channels_last, "threads": opts.threads,
                          "bare_images_per_s": bare, "workload_images_per_s": work, "ratios": ratios,
                          "ratio": ratio, "best_ratio": best, "median_step_ratio": step_ratio, **bound}))
    return 0 if ratio >= 0.97 else 1


if __name__ == "__main__":
    sys.exit(main())
