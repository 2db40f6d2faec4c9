"""Silent-data-corruption check, gpu-burn's method: one GEMM repeated, each result compared bit for bit.

The same fp32 product (TF32 off, fixed inputs) is computed for ``seconds``; every
result is compared with the first, element by element, on the device. Any element
that differs in any iteration makes the check FAIL, with the count of iterations and
of elements that differed: a healthy device computes the same bits every time (cuBLAS
documents bit-wise reproducible results run to run on the same GPU and toolkit, one
stream; the CPU's BLAS gives the same on the same buffers and thread count).
The comparison counts on the device and is read every :data:`CHECK_EVERY` iterations,
so the device is never left waiting on the host.

``CARDBENCH_INJECT_SDC=K`` (a test hook, like the other ``CARDBENCH_INJECT_*``) alters one
element of iteration K's result, to show what a FAIL looks like on any machine.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

import torch

from workloads.child import device as dev
from workloads.microbench.gemm import matmul_precision, operands

INJECT_ENV = "CARDBENCH_INJECT_SDC"
CHECK_EVERY = 10


def injected_iteration() -> int | None:
    text = os.environ.get(INJECT_ENV, "").strip()
    return int(text) if text.isdigit() else None


def burn(device: torch.device, seconds: float, n: int,
         on_progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    inject = injected_iteration()
    with matmul_precision("fp32"), torch.inference_mode():
        product = operands("fp32", n, device, seed=1)
        first = product().clone()
        bad_elements = torch.zeros((), dtype=torch.int64, device=device)
        bad_iterations = torch.zeros((), dtype=torch.int64, device=device)
        iterations, said, began = 0, 0.0, time.perf_counter()
        while True:
            result = product()
            iterations += 1
            if inject is not None and iterations == inject:
                result.view(-1)[0] += 1.0
            differs = result.ne(first)
            bad_elements += differs.sum()
            bad_iterations += differs.any()
            if device.type == "cpu" or iterations % CHECK_EVERY == 0:  # a CPU has no queue to keep full
                dev.synchronize(device)
                elapsed = time.perf_counter() - began
                if on_progress and elapsed >= said + 1.0:  # a line a second at most
                    said = elapsed
                    on_progress({"iterations": iterations, "seconds": elapsed,
                                 "mismatched_iterations": int(bad_iterations)})
                if elapsed >= seconds:
                    break
        elapsed = dev.now(device) - began
    elements, failed = int(bad_elements), int(bad_iterations)
    return {"status": "FAIL" if failed else "PASS", "iterations": iterations, "seconds": elapsed, "n": n,
            "dtype": "fp32", "mismatched_iterations": failed, "mismatched_elements": elements,
            "tflops": 2 * n ** 3 * iterations / elapsed / 1e12 if elapsed > 0 else None}
