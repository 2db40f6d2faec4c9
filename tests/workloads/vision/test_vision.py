"""The image workloads' shared parts: the ImageNet transforms and ResNet-50's training FLOPs per image."""
import subprocess
import sys

import pytest

from workloads.vision import resnet50_flops, transforms


def test_a_training_image_costs_24_5_gflop_at_224_px_in_proportion_to_its_pixels():
    assert resnet50_flops.train_gflop_per_image(224) == resnet50_flops.TRAIN_GFLOP_PER_IMAGE_224 == 24.5
    assert resnet50_flops.train_gflop_per_image(448) == pytest.approx(4 * 24.5)


def test_the_transforms_crop_to_the_size_and_normalise_by_imagenets_statistics():
    pytest.importorskip("torchvision")
    from PIL import Image

    image = Image.new("RGB", (300, 200), color=(124, 116, 104))   # ImageNet's mean colour, near enough
    for build in (transforms.training_transform, transforms.validation_transform):
        tensor = build(64)(image)
        assert tuple(tensor.shape) == (3, 64, 64)
        assert tensor.abs().max() < 0.05     # the mean colour normalises to about zero


def test_importing_the_shared_vision_parts_imports_no_torch():
    code = ("import sys, workloads.vision.transforms, workloads.vision.resnet50_flops; "
            "assert 'torch' not in sys.modules and 'torchvision' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
