"""Where the training images come from: synthetic tensors, torchvision's FakeData, or an ImageFolder tree.

Synthetic batches are made once on the device and reused, so a step measures
compute alone (the way timm's benchmark does). FakeData and ImageFolder go
through the same DataLoader path (workers, pinned memory, the standard training
transforms), so decode, transforms and host-to-device copies are exercised.

A file that is not an image, or an image that does not decode (truncated,
foreign, or larger than PIL's decompression-bomb limit), is skipped and counted,
never fatal: the dataset replaces an undecodable image with the next
readable one and passes the bad file's index on, through the collate
function, to the training loop, which counts it.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import torch
from PIL.Image import DecompressionBombError
from torch.utils.data import DataLoader, Dataset, DistributedSampler, RandomSampler
from torch.utils.data import default_collate

from workloads.child.harness import WorkloadError
from workloads.vision.transforms import training_transform

_REPLACEMENT_TRIES = 16
LAYOUT_HINT = "--data DIR takes an ImageFolder tree: DIR/<class name>/<image file>"


def check_folder(path: str) -> Path:
    """Cheap checks on ``--data DIR`` before any process or model is started."""
    root = Path(path).expanduser()
    if not root.exists():
        raise WorkloadError(f"data directory {path} does not exist", hint=LAYOUT_HINT)
    if not root.is_dir():
        raise WorkloadError(f"data path {path} is not a directory", hint=LAYOUT_HINT)
    classes = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    if not classes:
        raise WorkloadError(f"data directory {path} holds no class folders", hint=LAYOUT_HINT)
    return root


@dataclass
class SkippedFiles:
    """Files left out of training: not an image, or an image that does not decode."""

    not_images: list[str] = field(default_factory=list)
    corrupt: set[str] = field(default_factory=set)

    @property
    def count(self) -> int:
        return len(self.not_images) + len(self.corrupt)

    def examples(self, limit: int = 5) -> list[str]:
        return (self.not_images + sorted(self.corrupt))[:limit]


class CheckedImageFolder(Dataset):
    """ImageFolder whose unreadable images come back as ``(None, index)`` instead of raising."""

    def __init__(self, root: Path, transform: Any):
        from torchvision.datasets import ImageFolder
        from torchvision.datasets.folder import IMG_EXTENSIONS, has_file_allowed_extension

        self.not_images: list[str] = []

        def is_image(path: str) -> bool:
            ok = has_file_allowed_extension(path, IMG_EXTENSIONS)
            if not ok:
                self.not_images.append(os.path.relpath(path, root))
            return ok

        try:
            self.folder = ImageFolder(str(root), transform=transform, is_valid_file=is_image)
        except FileNotFoundError as exc:
            skipped = f" ({len(self.not_images)} non-image files skipped)" if self.not_images else ""
            raise WorkloadError(f"data directory {root} holds no images{skipped}: {exc}".splitlines()[0],
                                hint=LAYOUT_HINT) from None
        self.root = root
        self.classes: list[str] = list(self.folder.classes)

    def __len__(self) -> int:
        return len(self.folder)

    def __getitem__(self, index: int) -> tuple[Any, Any, list[int]]:
        """(image, label, indices of unreadable files met on the way).

        An unreadable file is replaced by the next readable one, so every batch
        keeps its size: batch norm needs more than one image, and data-parallel
        ranks must all take the same number of steps.
        """
        bad: list[int] = []
        for attempt in range(min(len(self.folder), _REPLACEMENT_TRIES)):
            i = (index + attempt) % len(self.folder)
            try:
                image, label = self.folder[i]
                return image, label, bad
            # PIL raises these for truncated or foreign files, and for an image of more pixels than
            # Image.MAX_IMAGE_PIXELS allows (a decompression bomb, or just a huge scan)
            except (OSError, SyntaxError, ValueError, DecompressionBombError):
                bad.append(i)
        return None, None, bad

    def path(self, index: int) -> str:
        return os.path.relpath(self.folder.samples[index][0], self.root)


def collate_readable(samples: list[tuple[Any, ...]]) -> tuple[Any, Any, list[int]]:
    """Batch the samples that decoded; pass on the indices of the files that did not."""
    good = [(s[0], s[1]) for s in samples if s[0] is not None]
    bad = [int(i) for s in samples if len(s) > 2 for i in s[2]]
    if not good:
        return None, None, bad
    images, labels = default_collate(good)
    return images, labels, bad


def _worker_init(_: int) -> None:
    # the runner stops a run by signalling its process group; a worker should just end
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class SyntheticBatches:
    """One random batch made on the device and reused each step: compute alone."""

    description = "synthetic tensors on the device"

    def __init__(self, batch_size: int, image_size: int, num_classes: int, device: torch.device,
                 steps_per_epoch: int, seed: int = 0):
        generator = torch.Generator().manual_seed(seed)
        images = torch.randn(batch_size, 3, image_size, image_size, generator=generator)
        labels = torch.randint(0, num_classes, (batch_size,), generator=generator)
        self.images = images.to(device)
        self.labels = labels.to(device)
        self.steps_per_epoch = steps_per_epoch
        self.skipped = SkippedFiles()

    def epoch(self, epoch: int) -> Iterator[tuple[torch.Tensor, torch.Tensor, list[int]]]:
        nothing_skipped: list[int] = []
        for _ in range(self.steps_per_epoch):
            yield self.images, self.labels, nothing_skipped

    def note_skipped(self, indices: list[int]) -> list[str]:
        return []


class LoaderBatches:
    """Batches from a DataLoader (FakeData or ImageFolder), on the host; the caller copies them."""

    def __init__(self, dataset: Dataset, description: str, batch_size: int, num_workers: int,
                 pin_memory: bool, rank: int = 0, world_size: int = 1, seed: int = 0):
        self.dataset = dataset
        self.description = description
        self.skipped = SkippedFiles(not_images=list(getattr(dataset, "not_images", [])))
        if world_size > 1:
            self.sampler: Any = DistributedSampler(dataset, num_replicas=world_size, rank=rank, seed=seed,
                                                   drop_last=True)
        else:
            self.sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))
        self.loader = DataLoader(
            dataset, batch_size=batch_size, sampler=self.sampler, num_workers=num_workers,
            pin_memory=pin_memory, drop_last=True, collate_fn=collate_readable,
            persistent_workers=num_workers > 0, worker_init_fn=_worker_init if num_workers > 0 else None,
        )
        self.steps_per_epoch = len(self.loader)
        if self.steps_per_epoch == 0:
            raise WorkloadError(
                f"{description} has {len(dataset)} images, fewer than one batch per process "
                f"({batch_size} x {world_size} process(es))",
                hint="lower --batch-size, or add images")

    def epoch(self, epoch: int) -> Iterator[tuple[Any, Any, list[int]]]:
        if isinstance(self.sampler, DistributedSampler):
            self.sampler.set_epoch(epoch)
        return iter(self.loader)

    def note_skipped(self, indices: list[int]) -> list[str]:
        """Record undecodable samples; return the paths seen for the first time."""
        new = []
        path_of = getattr(self.dataset, "path", None)
        for index in indices:
            path = path_of(index) if path_of else str(index)
            if path not in self.skipped.corrupt:
                self.skipped.corrupt.add(path)
                new.append(path)
        return new


def fake_dataset(size: int, image_size: int, num_classes: int) -> Dataset:
    from torchvision.datasets import FakeData

    return FakeData(size=size, image_size=(3, image_size, image_size), num_classes=num_classes,
                    transform=training_transform(image_size))


def folder_dataset(root: Path, image_size: int) -> CheckedImageFolder:
    return CheckedImageFolder(root, training_transform(image_size))
