"""A card named for a plan before it is rented (``--card "Ascend 910B3"``): its rated memory, read bandwidth and peak
from rated.csv (torch-free; `workloads.facts.rated` reads the table).

A name is matched as a device's name is (whole words, the most specific row wins: "H100-SXM" is the SXM5 part,
"NVIDIA A100 80GB" the 80 GB A100 of either form). A name no row matches, or a row without a memory size, is
refused with the table's close names, so a typo is one line that says what to type; so is a name that fits more than
one card the plan would read differently ("NVIDIA H100": the SXM5 or the PCIe part).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from workloads.facts.rated import RatedDevice, RatedPeak, load, lookup, rated_peak

# a maker's "GB" of DRAM is a power of two: an H100's 80 GB is 81,559 MiB by nvidia-smi, a 910B3's 64 GB 65,536 MB
# by npu-smi, so the plan reads the rated GB as GiB (the runtime's context and reserve are lines of their own)
GB = 2**30
CLOSE_NAMES = 6


class UnknownCard(ValueError):
    """A --card the table cannot answer for; its text names the close names."""


@dataclass(frozen=True)
class Card:
    name: str                    # the table's device ("Huawei Ascend 910B3")
    memory_bytes: int
    memory_source: str
    bandwidth_gbps: float | None  # rated memory bandwidth, None where the maker publishes none
    device: RatedDevice

    def peak(self, precision: str) -> RatedPeak | None:
        """The rated peak a precision's matrix products run at on this card (`workloads.facts.rated`'s rule)."""
        return rated_peak(self.name, precision, devices=[self.device])


def named_card(text: str, devices: list[RatedDevice] | None = None) -> Card:
    """The card ``text`` names, with a memory size; UnknownCard (its message one line) otherwise."""
    devices = load() if devices is None else devices
    device = lookup(text, devices)
    if device is None:
        raise UnknownCard(f"unknown card {text!r}; {_close(text, devices)}")
    rivals = _rivals(text, device, devices)
    if rivals:
        raise UnknownCard(f"{text!r} names more than one card of rated.csv: "
                          f"{'; '.join([device.device, *rivals])}; name one, e.g. {device.device!r}")
    memory = device.get("memory_gb")
    if memory is None:
        raise UnknownCard(f"{text!r} is {device.device}, whose memory size rated.csv does not hold; "
                          f"{_close(text, devices)}")
    bandwidth = device.get("memory_gbps")
    return Card(device.device, int(memory.value * GB), memory.source, bandwidth.value if bandwidth else None, device)


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", text.lower()) if w]


def _rivals(text: str, device: RatedDevice, devices: list[RatedDevice]) -> list[str]:
    """The other cards with a memory size that ``text`` may mean as well as ``device``: each row whose match words
    extend the device's (an "H100" is the SXM5 part to a driver's name, but a user's "NVIDIA H100" may be the PCIe
    one), unless a word of the text starts a word of the device's name and none of the rival's ("H100 SXM" rules the
    PCIe part out). A row the table names "(... not named)" is its answer for a name without the variant: no rivals."""
    if "not named" in device.device:
        return []
    own = set(device.match)
    kept = _words(device.device)
    said = [w for w in _words(text) if w not in {m.lower() for m in own}]
    rivals = []
    for other in devices:
        if other is device or other.get("memory_gb") is None or not own < set(other.match):
            continue
        theirs = _words(other.device)
        if not any(any(k.startswith(w) for k in kept) and not any(t.startswith(w) for t in theirs) for w in said):
            rivals.append(other.device)
    return rivals


def close_names(text: str, devices: list[RatedDevice]) -> list[str]:
    """The devices with a memory size whose name is nearest ``text``: a shared word first, then by spelling."""
    sized = [d.device for d in devices if d.get("memory_gb") is not None]
    words = {w for w in re.split(r"[\s_\-/]+", text.lower()) if len(w) >= 3}
    sharing = [name for name in sized if words & set(re.split(r"[\s_\-/()]+", name.lower()))
               or any(w in name.lower() for w in words if any(ch.isdigit() for ch in w))]
    # by spelling, against each device's name and the words that match it ("H800" is near the H100's "H100")
    spellings = {d.device.lower(): d.device for d in devices if d.device in sized}
    spellings.update({" ".join(d.match).lower(): d.device for d in devices if d.device in sized})
    spelled = [spellings[s] for s in difflib.get_close_matches(text.lower(), list(spellings), n=CLOSE_NAMES,
                                                                cutoff=0.5)]
    return list(dict.fromkeys(sharing + spelled))[:CLOSE_NAMES]


def _close(text: str, devices: list[RatedDevice]) -> str:
    names = close_names(text, devices)
    if names:
        return "close: " + "; ".join(names)
    sized = [d.device for d in devices if d.get("memory_gb") is not None]
    return f"rated.csv holds the memory of {len(sized)} cards, as: " + "; ".join(sized[:CLOSE_NAMES])
