"""What a ResNet-50 training figure is read against: published throughput and the device's FLOP bound.

Training one image costs about 24.5 GFLOP at 224 px (:mod:`workloads.vision.resnet50_flops`).
The bound is the device's dense peak from the one table of rated figures (``workloads/facts/rated.csv``, each with its
source), for the precision the training ran in, by the one rule (``workloads.facts.rated.rated_peak``: a
convolution network's fp32 reads against TF32 where the card has it). A device the table does not rate
has no bound: None, not a guess (and never a sibling's: an H100 PCIe is not the SXM).
"""

from __future__ import annotations

from workloads.facts.rated import rated_peak
from workloads.vision.resnet50_flops import train_gflop_per_image

# NVIDIA DeepLearningExamples, ResNet-50 v1.5 PyTorch, training with AMP
PUBLISHED_IMAGES_PER_S = {
    "A100-80GB, AMP (NVIDIA DeepLearningExamples)": 2470.0,
    "V100-16GB, AMP (NVIDIA DeepLearningExamples)": 1200.0,
}


def bounds(images_per_s: float | None, image_size: int, device_name: str, precision: str,
           devices: int = 1) -> dict[str, float | None]:
    """Achieved TFLOP/s beside the peak of the devices that produced it, and the fraction reached."""
    gflop = train_gflop_per_image(image_size)
    achieved = images_per_s * gflop / 1000 if images_per_s else None
    one = rated_peak(device_name, precision, convolutions=True)   # ResNet-50's math is convolutions
    peak = one.value * devices if one else None
    return {
        "gflop_per_image": round(gflop, 3),
        "achieved_tflops": round(achieved, 3) if achieved is not None else None,
        "peak_tflops": peak,
        "flop_utilisation": round(achieved / peak, 4) if achieved is not None and peak else None,
    }
