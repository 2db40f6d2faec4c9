"""What training ResNet-50 on one image costs: about three forward passes, 3 x 8.2 GFLOP = 24.5 GFLOP at 224 px,
in proportion to the pixel count. Torch-free."""

from __future__ import annotations

TRAIN_GFLOP_PER_IMAGE_224 = 24.5


def train_gflop_per_image(image_size: int) -> float:
    return TRAIN_GFLOP_PER_IMAGE_224 * (image_size / 224) ** 2
