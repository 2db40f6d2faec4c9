"""What a ResNet-50 training figure is read against: published throughput and the device's FLOP bound.

Training one image costs about three forward passes: 3 x 8.2 GFLOP = 24.5 GFLOP
at 224 px, scaling with the pixel count. Peak figures are NVIDIA's dense
tensor-core numbers from the data sheets (SXM parts); ``fp32`` is TF32, which
PyTorch uses for cuDNN convolutions by default. A device not listed has no
bound: None, not a guess.
"""

from __future__ import annotations

from workloads.device_names import has_word

TRAIN_GFLOP_PER_IMAGE_224 = 24.5

# NVIDIA DeepLearningExamples, ResNet-50 v1.5 PyTorch, training with AMP
PUBLISHED_IMAGES_PER_S = {
    "A100-80GB, AMP (NVIDIA DeepLearningExamples)": 2470.0,
    "V100-16GB, AMP (NVIDIA DeepLearningExamples)": 1200.0,
}

# name fragment (matched in the device name, first match wins) -> TFLOP/s per precision
PEAK_TFLOPS: list[tuple[str, dict[str, float]]] = [
    ("H200", {"bf16": 989.0, "fp16": 989.0, "fp32": 494.0}),
    ("H100", {"bf16": 989.0, "fp16": 989.0, "fp32": 494.0}),
    ("A100", {"bf16": 312.0, "fp16": 312.0, "fp32": 156.0}),
    ("L40S", {"bf16": 362.0, "fp16": 362.0, "fp32": 183.0}),
    ("L4", {"bf16": 121.0, "fp16": 121.0, "fp32": 60.0}),
    ("A10", {"bf16": 125.0, "fp16": 125.0, "fp32": 62.5}),
    ("V100", {"fp16": 125.0, "fp32": 15.7}),
    ("T4", {"fp16": 65.0, "fp32": 8.1}),
]


def train_gflop_per_image(image_size: int) -> float:
    return TRAIN_GFLOP_PER_IMAGE_224 * (image_size / 224) ** 2


def peak_tflops(device_name: str, precision: str) -> float | None:
    """The dense peak for this device and precision ('fp32', 'bf16', 'fp16'), or None when unknown."""
    key = precision.split()[0] if precision else "fp32"
    for fragment, peaks in PEAK_TFLOPS:
        if has_word(device_name, fragment):  # whole words: "L4" must not match an L40
            return peaks.get(key)
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
