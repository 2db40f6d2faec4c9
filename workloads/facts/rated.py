"""The rated figures a device's makers publish, read from ``rated.csv`` (data, not code), and the one rule for
which rated peak a precision reads against (:func:`rated_peak`). Torch-free: children and the UI share it.

``rated.csv`` holds one row per device and figure: the device, the whole words its
name must contain (``match``), the figure's key, its value, the maker's page it was
read from and the date it was read. A figure its maker does not publish has no row:
it is absent here, never guessed. Dense figures only: where a data sheet prints
tensor figures "with sparsity", the row holds half of it, as the sheet's footnote
says, and its ``note`` says so.

A device name matches a row when every word of ``match`` appears in it as a whole
word, case aside ("L4" is not an L40S; "A100 PCIE 40GB" matches "NVIDIA
A100-PCIE-40GB"). Of the devices that match, the one with the most words wins, so
"H100 PCIe" wins over plain "H100" (the SXM part, whose CUDA name carries no form
factor).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from workloads.device_names import has_word

RATED_CSV = Path(__file__).with_name("rated.csv")
COLUMNS = ("device", "match", "figure", "value", "source", "date", "note")

# figure key -> (unit, what it is); the keys the workload's measurements are read against
FIGURES: dict[str, tuple[str, str]] = {
    "fp32_tflops": ("TFLOP/s", "dense FP32 (no tensor cores)"),
    "tf32_tflops": ("TFLOP/s", "dense TF32 tensor"),
    "fp16_tflops": ("TFLOP/s", "dense FP16 tensor"),
    "bf16_tflops": ("TFLOP/s", "dense BF16 tensor"),
    "int8_tops": ("TOPS", "dense INT8 tensor"),
    "fp8_tflops": ("TFLOP/s", "dense FP8 tensor"),
    "memory_gbps": ("GB/s", "memory bandwidth"),
    "memory_gb": ("GB", "memory size"),
    "tdp_w": ("W", "maximum board power (TDP)"),
}


class RatedTableError(ValueError):
    """rated.csv has a row the lookup cannot use (an unknown figure, a value that is not a number)."""


@dataclass(frozen=True)
class Rated:
    """One published figure with where it was read."""

    value: float
    source: str
    date: str
    note: str = ""


@dataclass(frozen=True)
class RatedDevice:
    device: str
    match: tuple[str, ...]
    figures: dict[str, Rated] = field(default_factory=dict)

    def get(self, figure: str) -> Rated | None:
        return self.figures.get(figure)


def load(path: Path = RATED_CSV) -> list[RatedDevice]:
    """The devices of the table, in its order, each with its figures."""
    devices: dict[str, RatedDevice] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            figure, text = (row.get("figure") or "").strip(), (row.get("value") or "").strip()
            if figure not in FIGURES:
                raise RatedTableError(f"{path.name} line {line}: unknown figure {figure!r}")
            device = devices.setdefault(row["device"], RatedDevice(row["device"], tuple(row["match"].split())))
            if tuple(row["match"].split()) != device.match:
                raise RatedTableError(f"{path.name} line {line}: {row['device']} is matched by two word lists")
            if not text:
                continue  # a figure looked for and not published: the row records the looking, not a value
            try:
                value = float(text)
            except ValueError:
                raise RatedTableError(f"{path.name} line {line}: {figure} {text!r} is not a number") from None
            if not row.get("source", "").strip() or not row.get("date", "").strip():
                raise RatedTableError(f"{path.name} line {line}: {row['device']} {figure} has no source or date")
            device.figures[figure] = Rated(value, row["source"].strip(), row["date"].strip(),
                                           (row.get("note") or "").strip())
    return list(devices.values())


def lookup(device_name: str, devices: list[RatedDevice] | None = None) -> RatedDevice | None:
    """The table's device for a device name (the most specific match), or None: the CPU and unknown cards."""
    best: RatedDevice | None = None
    for device in devices if devices is not None else load():
        if device.match and all(has_word(device_name, word) for word in device.match):
            if best is None or len(device.match) > len(best.match):
                best = device
    return best


def peak_figures(precision: str | None, *, convolutions: bool = False) -> tuple[str, ...]:
    """The rated figures a precision's math runs at, in order (the first the card publishes wins); none for a
    precision the table has no figure for. ``precision`` may carry a note ('fp16 (fp32: conv2d)' reads as fp16).

    fp32 is the one that depends on the work: PyTorch runs fp32 convolutions as TF32 by default
    (torch.backends.cudnn.allow_tf32), so a convolution network's fp32 (ResNet-50) reads against TF32 where the
    card has it and plain FP32 where it has none (V100, T4); fp32 matmuls run in full FP32
    (torch.backends.cuda.matmul.allow_tf32 is False by default), so a transformer's fp32 reads against plain FP32."""
    key = (precision or "fp32").split()[0]
    if key == "fp32":
        return ("tf32_tflops", "fp32_tflops") if convolutions else ("fp32_tflops",)
    return tuple(figure for figure in (f"{key}_tflops", f"{key}_tops") if figure in FIGURES)


@dataclass(frozen=True)
class RatedPeak:
    """The peak a measured rate is read against: which device's which figure, and where it was read."""

    device: str
    figure: str
    value: float
    source: str
    date: str


def rated_peak(device_name: str, precision: str | None, *, convolutions: bool = False,
               devices: list[RatedDevice] | None = None) -> RatedPeak | None:
    """The rated peak a run in ``precision`` on ``device_name`` reads against (:func:`peak_figures`' rule), or None:
    the CPU, an unknown card, a figure its maker does not publish. The report, compare and every workload ask here,
    so one run never states two bounds."""
    device = lookup(device_name, devices)
    if device is None:
        return None
    for figure in peak_figures(precision, convolutions=convolutions):
        found = device.get(figure)
        if found is not None:
            return RatedPeak(device.device, figure, found.value, found.source, found.date)
    return None
