"""JPEG decode per CPU core, with PIL and with torchvision.io.decode_jpeg (and on the device where torchvision
can), at the data set's own sizes; then ResNet-50's training transforms timed apart (the same ones
workloads/resnet50/imagedata.py trains with: RandomResizedCrop 224, horizontal flip, ToTensor, Normalize).

The files are read into memory first, so this part times decoding, not storage: a round of them, bounded by
count, by bytes held and by the pixels decoded at once (a round of 9000 x 9000 images would otherwise hold 243 MB
each), and by the time cap to read them. One thread: the figure is per core, which the loader part multiplies by
its workers. Each timing repeats over the round until its time cap (or one pass, whatever is longer).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from workloads.dataio.images import Problems, kind_of, open_rgb, read_bytes
from workloads.vision.transforms import training_transform
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA

MAX_FILES = 256      # decoded in a round; a sample of the data set's sizes
# what a round holds at once, the first file always (the part needs one to time, and one is bounded by PIL's
# pixel limit and images.MAX_FILE_BYTES): 256 ImageNet files are ~50 M pixels and ~30 MB, well under both
ROUND_PIXELS = 64_000_000   # 192 MB as RGB
ROUND_BYTES = 128 << 20
IMAGE_SIZE = 224     # ResNet-50's training crop by default (workloads/resnet50: --image-size default)


def _timed(items: Sequence[Any], work: Callable[[Any], Any], seconds: float) -> float | None:
    """Items done per second, over passes of ``items`` until ``seconds`` (at least one pass)."""
    if not items:
        return None
    done = 0
    t0 = time.perf_counter()
    while True:
        for item in items:
            work(item)
            done += 1
            if time.perf_counter() - t0 >= seconds and done >= len(items):
                break
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return done / elapsed


def measure(paths: Sequence[str], device: Any, seconds: float,
            image_size: int = IMAGE_SIZE) -> tuple[dict[str, Any], Problems]:
    """{pil_per_core, torchvision_per_core, device_decode, transforms_per_core, ...} in images/s, and what did
    not decode."""
    import torch
    from torchvision.io import decode_jpeg

    problems = Problems()
    good, cut = _round_of(paths, problems, seconds)
    out: dict[str, Any] = {"decode_files": len(good)}
    if cut:
        out["decode_round_note"] = f"a round of {len(good)} of {min(len(paths), MAX_FILES)} file(s): {cut}"
    if not good:
        return out, problems
    pixels = sorted(img.size[0] * img.size[1] for _, _, img in good)
    out["median_pixels"] = pixels[len(pixels) // 2]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out["pil_per_core"] = _round(_timed([d for _, d, _ in good], lambda d: open_rgb(d, ""), seconds))
        jpegs = [torch.frombuffer(bytearray(d), dtype=torch.uint8) for _, d, _ in good if kind_of(d) == "jpeg"]
        out["torchvision_per_core"] = _round(_timed(jpegs, decode_jpeg, seconds))
        transform = training_transform(image_size)
        out["transforms_per_core"] = _round(_timed([img for _, _, img in good], transform, seconds))
    finally:
        torch.set_num_threads(threads)
    out.update(_on_device(jpegs, device, seconds))
    return out, problems


def _round_of(paths: Sequence[str], problems: Problems, seconds: float) -> tuple[list[tuple[str, bytes, Any]], str]:
    """The round: (path, bytes, RGB image) of the files in order until MAX_FILES, ROUND_BYTES read, ROUND_PIXELS
    decoded or ``seconds`` spent reading (the first file that decodes always), and what cut it short ("" when
    nothing did). What did not decode is counted in ``problems``."""
    good: list[tuple[str, bytes, Any]] = []
    nbytes = pixels = 0
    reading = 0.0   # seconds spent reading (slow storage is the storage part's finding, not a reason to wait here)
    for path in paths[:MAX_FILES]:
        if good and reading >= seconds:
            return good, f"its files read for {seconds:g} s"
        if good and nbytes + _size(path) > ROUND_BYTES:   # known before it is read: a file that does not fit is not
            return good, f"at most {format_bytes(ROUND_BYTES)} of files held at once"
        t0 = time.perf_counter()
        data = read_bytes(path, problems)
        reading += time.perf_counter() - t0
        if data is None:
            continue
        image = open_rgb(data, path, problems)
        if image is None:
            continue
        size = image.size[0] * image.size[1]
        if good and pixels + size > ROUND_PIXELS:
            return good, f"at most {ROUND_PIXELS / 1e6:.0f} M pixels decoded at once"
        good.append((path, data, image))
        nbytes, pixels = nbytes + len(data), pixels + size
    return good, ""


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0   # read_bytes counts it unreadable


def _on_device(jpegs: list[Any], device: Any, seconds: float) -> dict[str, Any]:
    """decode_jpeg on the device (nvJPEG, batched), where torchvision has it for this device."""
    if device.type == "cpu":
        return {"device_decode_note": "no device: CPU only"}
    if not jpegs:
        return {"device_decode_note": "no JPEG to decode"}
    from torchvision.io import decode_jpeg

    from workloads.child import device as dev

    try:
        decode_jpeg(jpegs[:1], device=device)   # warm-up: the decoder's handle and its first allocation
        dev.synchronize(device)
        done = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds or not done:
            decode_jpeg(jpegs, device=device)
            dev.synchronize(device)
            done += len(jpegs)
        return {"device_decode": _round(done / (time.perf_counter() - t0))}
    except Exception as exc:  # noqa: BLE001 - unsupported here is a finding, not a failure of the run
        from workloads.errors import first_line

        return {"device_decode_note": f"decode_jpeg on {device}: {first_line(exc, typed=True, limit=200)}"}


def _round(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


def describe(m: dict[str, Any]) -> str:
    def fig(key: str) -> str:
        v = m.get(key)
        return f"{v:,.0f} images/s" if isinstance(v, (int, float)) else NA

    device = fig("device_decode") if "device_decode" in m else m.get("device_decode_note", NA)
    cut = f" ({m['decode_round_note']})" if m.get("decode_round_note") else ""
    return (f"decode per core: PIL {fig('pil_per_core')}, torchvision {fig('torchvision_per_core')}; "
            f"ResNet-50 train transforms {fig('transforms_per_core')}; on the device: {device}{cut}")
