"""What a ResNet-50 training figure is read against: published throughput and the device's FLOP bound.

Training one image costs about 24.5 GFLOP at 224 px (:mod:`workloads.vision.resnet50_flops`).
The bound is the device's dense peak from the one table of rated figures (``workloads/microbench/rated.csv``, each with its
source), for the precision the training ran in. A device the table does not rate
has no bound: None, not a guess (and never a sibling's: an H100 PCIe is not the SXM).
"""

from __future__ import annotations

from workloads.microbench import rated
from workloads.vision.resnet50_flops import train_gflop_per_image

# NVIDIA DeepLearningExamples, ResNet-50 v1.5 PyTorch, training with AMP
PUBLISHED_IMAGES_PER_S = {
    "A100-80GB, AMP (NVIDIA DeepLearningExamples)": 2470.0,
    "V100-16GB, AMP (NVIDIA DeepLearningExamples)": 1200.0,
}

# the training's precision -> the rated figures its convolutions run at, first found wins. PyTorch lets cuDNN
# run fp32 convolutions in TF32 by default (torch.backends.cudnn.allow_tf32), so fp32 reads against TF32 where
# the card has it, and against plain FP32 where it has none (V100, T4)
PRECISION_FIGURES = {"fp32": ("tf32_tflops", "fp32_tflops"), "bf16": ("bf16_tflops",), "fp16": ("fp16_tflops",)}


def peak_tflops(device_name: str, precision: str) -> float | None:
    """The dense peak for this device and precision ('fp32', 'bf16', 'fp16'), or None when unknown."""
    key = precision.split()[0] if precision else "fp32"
    device = rated.lookup(device_name)
    if device is None:
        return None
    for figure in PRECISION_FIGURES.get(key, ()):
        found = device.get(figure)
        if found is not None:
            return found.value
    return None


def bounds(images_per_s: float | None, image_size: int, device_name: str, precision: str,
           devices: int = 1) -> dict[str, float | None]:
    """Achieved TFLOP/s beside the peak of the devices that produced it, and the fraction reached."""
    gflop = train_gflop_per_image(image_size)
    achieved = images_per_s * gflop / 1000 if images_per_s else None
    one = peak_tflops(device_name, precision)
    peak = one * devices if one else None
    return {
        "gflop_per_image": round(gflop, 3),
        "achieved_tflops": round(achieved, 3) if achieved is not None else None,
        "peak_tflops": peak,
        "flop_utilisation": round(achieved / peak, 4) if achieved is not None and peak else None,
    }
