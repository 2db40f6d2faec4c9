"""The rated figures a device's makers publish, read from ``rated.csv`` (data, not code), torch-free.

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
