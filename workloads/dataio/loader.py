"""The DataLoader sweep: ResNet-50's training pipeline (read, PIL decode, its transforms to the run's image size,
batches) over the data set's files at num_workers 0, 1, 2, 4... up to the cores this process may use, pinned memory
on when there is a device, each setting for a time cap; images/s, CPU cores busy, and the host-to-device copy of
the batches.

The first batch of each setting is its warm-up (workers start, their imports): the clock starts after it.
Workers persist across passes over a small data set, as `persistent_workers` keeps them in training. CPU use is
this process and its workers' CPU seconds (psutil) over the timed wall seconds: "3.6 cores busy".
"""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, default_collate

from workloads.cpus import usable_cpus
from workloads.dataio.images import load_rgb
from workloads.vision.transforms import training_transform


class ImageFiles(Dataset):
    """The files as (image tensor, 0); an image that does not decode comes back as None, dropped in the batch."""

    def __init__(self, paths: Sequence[str], transform: Any):
        self.paths, self.transform = list(paths), transform

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        image = load_rgb(self.paths[index])
        return (None if image is None else self.transform(image)), 0


def collate(samples: list[tuple[Any, int]]) -> Any:
    good = [s for s in samples if s[0] is not None]
    return default_collate(good) if good else None


def _worker_init(_: int) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # a stopped run's workers just end


def worker_counts(cores: int) -> list[int]:
    """0, 1, 2, 4, 8... up to ``cores``, and ``cores`` itself."""
    counts, n = [0, 1], 2
    while n <= cores:
        counts.append(n)
        n *= 2
    if cores > 1 and counts[-1] != cores:
        counts.append(cores)
    return [c for c in counts if c <= max(cores, 1)]


def _cpu_seconds() -> float:
    import psutil

    me = psutil.Process()
    total = sum(me.cpu_times()[:2])
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.Error:   # a worker that ended between the listing and the read
            continue
    return total


def run_one(dataset: Dataset, workers: int, batch_size: int, device: Any, seconds: float) -> dict[str, Any]:
    """One setting: {workers, images_per_s, cores_busy, h2d_gb_s, batches}."""
    pin = device.type != "cpu"
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=workers, pin_memory=pin,
                        collate_fn=collate, drop_last=False, persistent_workers=workers > 0,
                        worker_init_fn=_worker_init if workers else None,
                        prefetch_factor=2 if workers else None)
    from workloads.child import device as dev

    images = batches = 0
    copy_s = copied = 0.0
    t0 = cpu0 = None
    threads = torch.get_num_threads()
    if not workers:
        # in this process, one thread, as torch gives each DataLoader worker: the transforms' small tensor ops gain
        # nothing from threads, and on a busy host a parallel region waits for its slowest thread (10x slower at
        # 2 threads on the loaded 2-core VM)
        torch.set_num_threads(1)
    try:
        while t0 is None or time.perf_counter() - t0 < seconds:
            yielded = False
            for batch in loader:
                yielded = True
                if t0 is None:   # the first batch is the warm-up
                    t0, cpu0 = time.perf_counter(), _cpu_seconds()
                    continue
                if batch is not None:
                    tensor = batch[0]
                    if pin:
                        c0 = time.perf_counter()
                        tensor.to(device, non_blocking=True)
                        dev.synchronize(device)
                        copy_s += time.perf_counter() - c0
                        copied += tensor.numel() * tensor.element_size()
                    images += len(tensor)
                    batches += 1
                if time.perf_counter() - t0 >= seconds:
                    break
            if not yielded:
                break
        wall = time.perf_counter() - t0 if t0 is not None else 0.0
        cpu = _cpu_seconds() - cpu0 if cpu0 is not None else 0.0
    finally:
        torch.set_num_threads(threads)
        del loader   # its workers are joined here
    return {"workers": workers, "pin_memory": pin, "batches": batches, "images": images,
            "images_per_s": round(images / wall, 1) if wall > 0 and images else None,
            "cores_busy": round(cpu / wall, 2) if wall > 0 else None,
            "h2d_gb_s": round(copied / copy_s / 1e9, 2) if copy_s > 0 else None}


def sweep(paths: Sequence[str], device: Any, seconds: float, batch_size: int, max_workers: int | None,
          image_size: int, on_setting: Any = None) -> list[dict[str, Any]]:
    """Every worker count in turn; a setting that fails is a row with its error, the others still run."""
    from workloads.errors import first_line

    dataset = ImageFiles(paths, training_transform(image_size))
    rows = []
    for workers in worker_counts(min(max_workers or usable_cpus(), usable_cpus())):
        try:
            row = run_one(dataset, workers, batch_size, device, seconds)
        except Exception as exc:  # noqa: BLE001 - one setting's failure (a worker killed) must not lose the rest
            row = {"workers": workers, "images_per_s": None, "error": first_line(exc, typed=True, limit=200)}
        rows.append(row)
        if on_setting is not None:
            on_setting(row)
    return rows   # the decode part counts the bad files; here they are only skipped
