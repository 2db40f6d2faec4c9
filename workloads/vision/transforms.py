"""The ImageNet-style transforms a ResNet-50 run applies: random crops and flips for training, a centre crop for
validation, both normalised by ImageNet's channel means and deviations. dataio times the training one, so it
measures what a training's loader does. torchvision is imported when a transform is built, not with this module."""

from __future__ import annotations

from typing import Any

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def training_transform(image_size: int) -> Any:
    from torchvision import transforms  # lazy: torch

    return transforms.Compose([
        transforms.RandomResizedCrop(image_size, antialias=True),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])


def validation_transform(image_size: int) -> Any:
    from torchvision import transforms  # lazy: torch

    return transforms.Compose([
        transforms.Resize(image_size * 256 // 224, antialias=True),
        transforms.CenterCrop(image_size),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])
