"""Top-1 and top-5 accuracy on an ImageFolder validation split (``--val DIR``), after each epoch or alone.

The trial write-ups judge a fine-tuning run by "final accuracy matches what I got on other platforms", so
the run measures it the way the ImageNet recipes do: resize to 256/224 of the image size, centre crop,
the model in eval mode, no gradient, under the precision the training ran in. Labels are the folder's
class indices (ImageFolder sorts class names), so the split must have the training data's class folders;
a split that does not is refused before the first step, not scored against the wrong labels.

Evaluation time is not training time: the loop leaves it out of its step times and its total.
An undecodable image is skipped and counted. The training dataset stands the next readable image in for
it; here that stand-in is dropped, so no image is scored twice.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader

from workloads.child import device as devices
from workloads.child.harness import WorkloadError, log
from workloads.child.train.precision import Precision
from workloads.resnet50 import imagedata
from workloads.vision.transforms import validation_transform
from workloads.resnet50.result_record import ResNet50Result

# a top-5 figure over fewer than five classes is always 100 %: none is reported
TOP5_MIN_CLASSES = 5


@dataclass(frozen=True)
class Accuracy:
    """One evaluation: shares of the split's images whose class is the first guess / among the first five."""

    epoch: int | None
    top1: float
    top5: float | None
    images: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "top1": self.top1, "top5": self.top5, "images": self.images,
                "seconds": round(self.seconds, 3)}

    def line(self) -> str:
        when = f"after epoch {self.epoch}" if self.epoch is not None else "of the --weights"
        top5 = f", top-5 {self.top5:.2%}" if self.top5 is not None else ""
        return (f"validation {when}: top-1 {self.top1:.2%}{top5} "
                f"on {self.images} images in {self.seconds:.1f} s")


def count_topk(logits: torch.Tensor, labels: torch.Tensor, k: int) -> int:
    """How many rows have their label among the ``k`` highest logits."""
    best = logits.topk(min(k, logits.shape[1]), dim=1).indices
    return int((best == labels.unsqueeze(1)).any(dim=1).sum())


def collate_without_stand_ins(samples: list[tuple[Any, ...]]) -> tuple[Any, Any, list[int]]:
    """A batch of the images that decoded themselves: a sample that met unreadable files is another image."""
    return imagedata.collate_readable([s if not s[2] else (None, None, s[2]) for s in samples])


class Validation:
    """The split of ``--val DIR``, checked against what the model was built for, ready to score a model."""

    def __init__(self, setup: Any, path: str):
        self.setup = setup
        root = imagedata.check_folder(path)
        self.dataset = imagedata.CheckedImageFolder(root, validation_transform(setup.args.image_size))
        self.description = f"ImageFolder {path} ({len(self.dataset)} images, {len(self.dataset.classes)} classes)"
        self._check_classes(path)
        workers = setup.num_workers
        if workers is None:  # no training loader to follow (--eval-only, synthetic data): the loader's default
            workers = setup.args.num_workers if setup.args.num_workers is not None else min(8, os.cpu_count() or 1)
        self.loader = DataLoader(self.dataset, batch_size=setup.args.batch_size, shuffle=False,
                                 num_workers=workers, collate_fn=collate_without_stand_ins,
                                 pin_memory=setup.device.type == "cuda")
        self.history: list[Accuracy] = []
        self.skipped: set[int] = set()

    def _check_classes(self, path: str) -> None:
        found = list(self.dataset.classes)
        trained = getattr(getattr(self.setup.data, "dataset", None), "classes", None)
        if trained is not None and list(trained) != found:
            missing = sorted(set(trained) ^ set(found))[:3]
            raise WorkloadError(f"--val {path} has other class folders than the training data "
                                f"({len(found)} against {len(trained)}; e.g. {', '.join(missing) or 'in another order'})",
                                hint="the validation split needs the training data's class folders")
        if len(found) != self.setup.num_classes:
            raise WorkloadError(f"--val {path} has {len(found)} class folders; the model has "
                                f"{self.setup.num_classes} outputs",
                                hint="give --num-classes the split's count, or weights with that many classes")

    def run(self, model: Any, epoch: int | None, autocast_dtype: Any = None) -> Accuracy:
        dev = self.setup.device
        t0 = time.perf_counter()
        was_training = model.training
        model.eval()
        hit1 = hit5 = seen = 0
        try:
            with torch.no_grad():
                for images, labels, bad in self.loader:
                    self.skipped.update(bad)
                    if images is None:
                        continue
                    images = images.to(dev, non_blocking=True, memory_format=self.setup.memory_format)
                    labels = labels.to(dev, non_blocking=True)
                    with torch.autocast(devices.autocast_type(dev), dtype=autocast_dtype,
                                        enabled=autocast_dtype is not None):
                        logits = model(images)
                    hit1 += count_topk(logits, labels, 1)
                    hit5 += count_topk(logits, labels, 5)
                    seen += int(labels.shape[0])
        finally:
            model.train(was_training)
        if seen == 0:
            raise WorkloadError(f"no readable images in {self.description}", hint="check the files decode")
        top5 = hit5 / seen if self.setup.num_classes >= TOP5_MIN_CLASSES else None
        accuracy = Accuracy(epoch, hit1 / seen, top5, seen, time.perf_counter() - t0)
        self.history.append(accuracy)
        log(accuracy.line())
        return accuracy

    def metrics(self) -> dict[str, Any]:
        """The result's figures: the last evaluation's, and every one by epoch."""
        if not self.history:
            return {}
        last = self.history[-1]
        return {"val_top1": last.top1, "val_top5": last.top5, "val_images": last.images,
                "val_skipped_files": len(self.skipped), "val_data": self.description,
                "val_history": [a.to_dict() for a in self.history]}


def evaluate_only(setup: Any) -> dict[str, Any]:
    """``--eval-only``: the ``--weights`` model scored on ``--val``, no training; its result carries the figures."""
    args = setup.args
    setup.build(synthetic_only=True)
    precision = Precision(setup)
    validation = Validation(setup, args.val)
    setup.start(precision.requested)
    accuracy = validation.run(setup.model, None, precision.amp_dtype)
    metrics = {
        **validation.metrics(),
        "eval_images_per_s": accuracy.images / accuracy.seconds if accuracy.seconds > 0 else None,
        "eval_only": True,
        "weights": args.weights,
        "precision": precision.label,
        "batch_size": args.batch_size,
        "image_size": args.image_size,
        "num_classes": setup.num_classes,
        "steps": 0,
        "device": setup.device_name,
    }
    setup.emitter.result(ResNet50Result.of(metrics))
    return metrics
