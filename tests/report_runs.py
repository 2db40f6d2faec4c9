"""Run directories built by hand (fake events and telemetry), so report tests need no torch."""

from __future__ import annotations

import math
from pathlib import Path

from tui.store import RunStore
from workloads import protocol

T0 = 1_790_000_000.0


def _device(i: int, t: int, util: float) -> dict:
    return {"index": 0, "name": "Fake GPU 80GB", "bus_id": "0000:3b:00.0", "pci_vendor": "NVIDIA",
            "util_gpu_pct": util, "mem_used_bytes": (20 + t) * 2**30, "mem_total_bytes": 80 * 2**30,
            "temperature_c": 60.0 + t, "power_w": 300.0 + 10 * t, "power_limit_w": 700.0,
            "sm_clock_mhz": 1980.0 - (15 if t > 5 else 0), "throttle_reasons": ["sw_power_cap"] if t == 7 else [],
            "ecc_corrected": 3, "ecc_uncorrected": 0}


def _sample(t: int, util: float, with_device: bool = True) -> dict:
    return {"t": T0 + t, "devices": [_device(0, t, util)] if with_device else [],
            "host": {"hostname": "testhost", "cpu_count": 8, "cpu_pct": 40.0 + t,
                     "mem_used_bytes": 8 * 2**30, "mem_total_bytes": 64 * 2**30},
            "errors": [], "sources": ["nvml"] if with_device else []}


def resnet_run(store: RunStore, args=("--steps", "10", "--batch-size", "32"), *, fallback=True, status="ok",
               with_device=True, figures: dict | None = None) -> Path:
    run = store.create("resnet50", list(args))
    run.append(protocol.Start(t=T0, workload="resnet50", device="Fake GPU 80GB",
                              config={"batch_size": 32, "image_size": 224, "amp": "bf16", "epoch_size": 12800},
                              versions={"torch": "2.14.1"}))
    if fallback:
        run.append(protocol.Fallback(t=T0 + 1, error="CUDA error: device kernel image is invalid",
                                     action="autocast off for BatchNorm2d", layer="layer1.0.bn1", op="BatchNorm2d"))
        run.append(protocol.WorkloadWarning(t=T0 + 1, message="op aten::foo fell back to the CPU", code="cpu_fallback"))
    for i in range(1, 11):
        run.append(protocol.Step(t=T0 + i, step=i, epoch=1, loss=6.9 * math.exp(-i / 8), throughput=900.0 + 10 * i,
                                 unit="images/s", step_s=0.035, data_wait_s=0.001, compute_s=0.034,
                                 memory_allocated_bytes=30 * 2**30))
        run.append_telemetry(_sample(i, 90.0 + (i % 3), with_device))
    if status == "ok":
        run.append(protocol.Result(t=T0 + 11, metrics={
            "images_per_s": 950.0, "images_per_s_compute": 960.0, "total_s": 10.0, "final_loss": 1.97,
            "precision": "bf16", "peak_memory_bytes": 30 * 2**30, "batch_size": 32, "image_size": 224, "steps": 10,
            "published_images_per_s": {"A100-80GB, AMP (NVIDIA DeepLearningExamples)": 2470.0},
            "achieved_tflops": 23.3, "peak_tflops": 989.0, "flop_utilisation": 0.0235, **(figures or {})}))
        run.append(protocol.End(t=T0 + 12, status="ok", exit_code=0))
    else:
        run.append(protocol.Error(t=T0 + 11, message="CUDA out of memory", hint="lower --batch-size"))
        run.append(protocol.End(t=T0 + 12, status="failed", exit_code=1))
    run.log("resnet50: training on Fake GPU 80GB")
    run.close()
    return run.path


# a loaded host measured its read bandwidth low: GPT-2 decoded at 135.8 % of the bound it measured
BOUND_EXCEEDED = {"bound_tokens_per_s": 29.8, "device_read_gbps": 14.9, "bandwidth_gbps": 20.2,
                  "bandwidth_fraction": None, "bandwidth_fraction_unreliable": 1.358}


def generate_run(store: RunStore, args=("--tokens", "64"), *, bound_exceeded=False) -> Path:
    run = store.create("generate", list(args))
    run.append(protocol.Start(t=T0 + 20, workload="generate", device="Fake GPU 80GB",
                              config={"dtype": "bf16", "batch_size": 1, "tokens": 64}))
    for i in range(1, 5):
        run.append(protocol.Step(t=T0 + 20 + i, step=16 * i, throughput=120.0 + i, unit="tokens/s", step_s=0.008))
        run.append_telemetry(_sample(20 + i, 60.0))
    metrics = {
        "tokens_per_s": 121.5, "aggregate_tokens_per_s": 121.5, "bound_tokens_per_s": 900.0, "ttft_s": 0.012,
        "latency_p50_s": 0.0082, "latency_p99_s": 0.0101, "bandwidth_fraction": 0.135, "device_read_gbps": 3000.0,
        "dtype": "bf16", "peak_memory_bytes": 600 * 2**20, "batch_size": 1, "tokens": 64, "model_size": "124M"}
    if bound_exceeded:
        metrics.update(BOUND_EXCEEDED, tokens_per_s=40.5, aggregate_tokens_per_s=40.5)
        run.append(protocol.WorkloadWarning(t=T0 + 25, code="bound_exceeded", message=(
            "decoding read 20.2 GB/s (40.5 tokens/s), more than the 14.9 GB/s measured as the device's read "
            "bandwidth (bound 29.8 tokens/s): the bound was mis-measured, most likely while the host was busy "
            "with other work; the share of read bandwidth used is left out as unreliable")))
    run.append(protocol.Result(t=T0 + 25, metrics=metrics))
    run.append(protocol.End(t=T0 + 26, status="ok", exit_code=0))
    run.close()
    return run.path


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """A tiny PNG reader (8-bit RGB/RGBA, not interlaced): (width, height, rows of raw pixels)."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    assert header is not None
    width, height, depth, color, _comp, _filt, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def ink_fraction(data: bytes) -> tuple[int, int, float]:
    """(width, height, share of pixels that differ from the most common colour).

    Pillow decodes when it is installed (it comes with torchvision); the pure-Python reader otherwise.
    """
    from collections import Counter

    try:
        import io

        from PIL import Image
    except ImportError:
        width, height, rows = decode_png(data)
        bpp = len(rows[0]) // width
        pixels = [row[x:x + 3] for row in rows[::2] for x in range(0, len(row), bpp * 2)]
    else:
        image = Image.open(io.BytesIO(data))
        image.load()
        assert image.format == "PNG"
        width, height = image.size
        rgb = image.convert("RGB")
        pixels = [rgb.getpixel((x, y)) for y in range(0, height, 2) for x in range(0, width, 2)]
    counts = Counter(pixels)
    return width, height, 1.0 - counts.most_common(1)[0][1] / len(pixels)
