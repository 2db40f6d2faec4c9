"""What a reader of a report in Chinese would find still in English: the ASCII words outside code spans."""

from __future__ import annotations

import re

# words a Chinese technical text keeps as they are: units, product and model names, abbreviations
ALLOWED = {
    # units
    "images/s", "tokens/s", "ms", "s", "min", "h", "d", "B", "KiB", "MiB", "GiB", "TiB", "GB/s", "MHz", "W", "C",
    "px", "TFLOP/s",
    # names and abbreviations
    "GPU", "CPU", "ResNet-50", "GPT-2", "PyTorch", "torch", "torchvision", "TensorFlow", "NVML", "PCI", "CUDA", "ROCm",
    "cuDNN", "Python", "cardbench", "NVIDIA", "NVLink", "Xid", "ECC", "SM", "UTC", "N/A", "p90", "RSS", "token",
    "epoch", "ImageNet-1k", "PNG", "SVG", "GSP", "RPC", "MMU", "NaN/Inf", "fp32", "fp16", "bf16", "PATH", "p50", "p99",
    "top-1", "top-5",  # accuracy, as the papers write it
    "USD", "CNY", "EUR",  # the currency the user gave
}
_FENCED = re.compile(r"^(`{3,})[^\n]*\n.*?^\1\s*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
_TARGET = re.compile(r"\]\([^)\s]*\)")  # where an image or a link points: a path, not words
# a word starts where no letter or digit precedes it: '124M' and '80GB' are figures with their unit
_WORD = re.compile(r"(?<![0-9A-Za-z_.])(?:[A-Za-z][A-Za-z0-9_./+-]*[A-Za-z0-9/]|[A-Za-z])")
_TAG = re.compile(r"GPU\d+|GPU\?")


def english_words(markdown: str) -> set[str]:
    """The ASCII words of ``markdown`` outside fenced blocks, code spans and link targets, less ``ALLOWED``."""
    text = _TARGET.sub("]", _SPAN.sub(" ", _FENCED.sub(" ", markdown)))
    return {w for w in _WORD.findall(text) if w not in ALLOWED and not _TAG.fullmatch(w)}
