"""The data-IO workload's loader figure against a bare DataLoader loop over the same files and transforms.

    python bench/dataio_vs_bare_loader.py                       # 256 made JPEGs in the temporary folder
    python bench/dataio_vs_bare_loader.py --data DIR --seconds 3 --device cuda

Goal (issue 26): at the workers the workload's verdict recommends, its images/s is within 10 % of a bare loop
(``for images, _ in DataLoader(ImageFolder-like files, the same transforms, the same workers)``) timed alike;
at 0 workers both run their transforms on one thread, as the workload does (and as each DataLoader worker is).
First the workload runs whole, as `cardbench run dataio` does (a child: its verdict names the workers);
then rounds alternate the workload's loader (workloads/dataio/loader.py run_one) and the bare loop at those
workers, the same seconds each, so a busy moment on the host costs both. The goal is judged on the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from PIL import Image  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

from workloads.child import device as dev  # noqa: E402
from workloads.dataio import loader, makedata, survey  # noqa: E402
from workloads.dataio.words import verdict_words  # noqa: E402
from workloads.vision.transforms import training_transform  # noqa: E402

GOAL = 0.10


class Bare(Dataset):
    """What a training script writes: open, convert, transform."""

    def __init__(self, paths: list[str]):
        self.paths, self.transform = paths, training_transform(224)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, i: int):
        with Image.open(self.paths[i]) as im:
            return self.transform(im.convert("RGB")), 0


def bare_loop(paths: list[str], workers: int, batch: int, device: torch.device, seconds: float) -> float:
    pin = device.type != "cpu"
    data = DataLoader(Bare(paths), batch_size=batch, shuffle=True, num_workers=workers, pin_memory=pin,
                      persistent_workers=workers > 0)
    images, t0 = 0, None
    threads = torch.get_num_threads()
    if not workers:   # the workload's 0-worker setting runs on one thread (workloads/dataio/loader.py run_one)
        torch.set_num_threads(1)
    while t0 is None or time.perf_counter() - t0 < seconds:
        for x, _ in data:
            if t0 is None:
                t0 = time.perf_counter()   # the first batch is the warm-up, as the workload's
                continue
            if pin:
                x.to(device, non_blocking=True)
                dev.synchronize(device)
            images += len(x)
            if time.perf_counter() - t0 >= seconds:
                break
    rate = images / (time.perf_counter() - t0)
    torch.set_num_threads(threads)
    del data
    return rate


def workload_run(data: str, seconds: float, batch: int, device: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "workloads.dataio", "--data", data, "--seconds", str(seconds),
                           "--batch-size", str(batch), "--device", device], cwd=ROOT, capture_output=True, check=False,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    results = [json.loads(line) for line in done.stdout.splitlines() if '"result"' in line]
    if done.returncode != 0 or not results:
        sys.exit(f"the workload failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    return results[-1]["metrics"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=None, help="a folder of images (default: 256 made JPEGs)")
    p.add_argument("--make", type=int, default=256)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--device", default="auto")
    args = p.parse_args()
    device = dev.resolve(args.device)
    made = None if args.data else makedata.make(args.make)
    try:
        root = args.data or str(made)
        m = workload_run(root, args.seconds, args.batch_size, str(device))
        workers = int(m["loader_workers"])
        print(f"device: {dev.name(device)}; data: {m['data_where']}, {m['images']} images")
        print("workload sweep: " + ", ".join(f"{r['workers']} worker(s) {r['images_per_s'] or 0:,.0f}"
                                             for r in m["loader"]) + " images/s")
        print(f"verdict: {verdict_words(m)}")
        paths = [p for p, _ in survey.survey(root).sample]
        ours, bare = [], []
        for _ in range(args.rounds):
            dataset = loader.ImageFiles(paths, training_transform(int(m.get("image_size") or 224)))
            ours.append(loader.run_one(dataset, workers, args.batch_size, device, args.seconds)["images_per_s"])
            bare.append(bare_loop(paths, workers, args.batch_size, device, args.seconds))
        a, b = statistics.median(ours), statistics.median(bare)
        ratio = a / b
        print(f"at {workers} worker(s), {args.rounds} alternating rounds of {args.seconds:g} s: workload "
              f"{a:,.0f} images/s (rounds {', '.join(f'{x:,.0f}' for x in ours)}), bare DataLoader {b:,.0f} "
              f"(rounds {', '.join(f'{x:,.0f}' for x in bare)})")
        ok = abs(ratio - 1) <= GOAL
        print(f"workload / bare = {ratio:.2f} (goal: within {GOAL:.0%}): {'met' if ok else 'NOT met'}")
        return 0 if ok else 1
    finally:
        if made is not None:
            makedata.remove(made)


if __name__ == "__main__":
    sys.exit(main())
