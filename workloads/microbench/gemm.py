"""GEMM throughput per dtype: square matrices of growing size until the figure stops rising.

A product of two n x n matrices costs 2 n^3 operations (FLOP, or integer operations for
int8). Each dtype runs the call a user of that dtype would make:

- fp32: ``torch.mm`` with TF32 off (float32 matmul precision "highest"): the CUDA cores.
- tf32: ``torch.mm`` on fp32 tensors with precision "high": TF32 tensor cores (CUDA 8.0+).
- fp16, bf16: ``torch.mm``.
- int8: ``torch._int_mm`` (int8 in, int32 out).
- fp8: ``torch._scaled_mm`` (e4m3 in, bf16 out, unit scales; the second operand column-major as it requires).

A dtype the device or this PyTorch cannot run is skipped with the reason (the error of
a small trial call). Sizes double from ``start`` up to ``max_size``; the sweep ends after
:data:`PATIENCE` sizes in a row that do not beat the best by :data:`RISE`, after a size
whose one call takes longer than ``max_call_s``, or when the next size would not fit.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import torch

from workloads.catalogue import say
from workloads.child import device as dev
from workloads.errors import first_line
from workloads.microbench.timing import Timed, time_calls

DTYPES = ("fp32", "tf32", "fp16", "bf16", "int8", "fp8")
RISE = 1.03          # a size must beat the best so far by 3 % to count as rising
PATIENCE = 2         # sizes in a row that do not rise end the sweep (one alone may be a busy moment on the host)
TRIAL_N = 64         # the trial call's size: a multiple of 16, which int8 and fp8 kernels ask for
_ITEMSIZE = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "int8": 1, "fp8": 1}


@dataclass
class DtypeResult:
    dtype: str
    unit: str = "TFLOP/s"
    skipped: str | None = None            # why it did not run
    sizes: list[dict[str, Any]] = field(default_factory=list)   # n, best and median TFLOP/s, calls timed
    stop: str = ""                        # why the sweep ended where it did

    @property
    def best(self) -> dict[str, Any] | None:
        return max(self.sizes, key=lambda s: s["best"]) if self.sizes else None

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {"dtype": self.dtype, "unit": self.unit, "skipped": self.skipped, "sizes": self.sizes,
                "stop": self.stop, "best_n": best["n"] if best else None,
                "best": best["best"] if best else None, "median": best["median"] if best else None}


@contextlib.contextmanager
def matmul_precision(dtype: str) -> Iterator[None]:
    """fp32 runs with TF32 off and tf32 with it on, whatever the process had; restored after."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def unsupported(dtype: str, device: torch.device) -> str | None:
    """Why ``dtype`` cannot run here, before trying it; None when a trial call decides."""
    if dtype == "tf32":
        found = dev.capability(device)
        if found is None:
            return say("workload.microbench.skip.tf32_not_cuda")
        if not dev.has_tf32(device):
            return say("workload.microbench.skip.tf32_capability", capability=f"{found[0]}.{found[1]}")
    return None


def operands(dtype: str, n: int, device: torch.device, seed: int = 0) -> Callable[[], torch.Tensor]:
    """A call computing one n x n product in ``dtype`` on ``device``, its operands made once."""
    # drawn on the device (16384^2 numbers drawn on the host and copied take seconds per dtype), from the global
    # seed: a vendor backend may have no Generator of its own, and this child has no other use for the RNG
    torch.manual_seed(seed)
    if dtype == "int8":
        a = torch.randint(-8, 8, (n, n), device=device, dtype=torch.int8)
        # column-major, as cuBLASLt's int8 kernels take it: row x row fails on CUDA 13 builds (PyTorch's own
        # test__int_mm skips it) and takes a slow path on CUDA 12
        b = torch.randint(-8, 8, (n, n), device=device, dtype=torch.int8).t()
        return lambda: torch._int_mm(a, b)
    if dtype == "fp8":
        a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()  # column-major
        one = torch.ones((), device=device)
        # fast accumulation, as the data sheets' fp8 figures assume (a throughput figure, not a precision check)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True)
    kind = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(dtype, torch.float32)
    a = torch.randn(n, n, device=device, dtype=kind)
    b = torch.randn(n, n, device=device, dtype=kind)
    out = torch.empty(n, n, device=device, dtype=kind)
    return lambda: torch.mm(a, b, out=out)


def trial(dtype: str, device: torch.device) -> str | None:
    """The reason ``dtype`` does not run here (the first line of a small call's error), or None."""
    reason = unsupported(dtype, device)
    if reason:
        return reason
    try:
        with matmul_precision(dtype):
            operands(dtype, TRIAL_N, device)()
    except Exception as exc:  # noqa: BLE001 - any failure of the trial is the reason to skip
        return first_line(exc, typed=True, limit=200)
    return None


def fits(dtype: str, n: int, device: torch.device) -> bool:
    """Whether three n x n matrices (and fp8's float32 staging) fit in a quarter of the free memory."""
    free = dev.free_bytes(device)
    need = 3 * n * n * max(_ITEMSIZE[dtype], 4 if dtype == "fp8" else 0)
    return free is None or need <= free // 4


def sweep(dtype: str, device: torch.device, *, start: int, max_size: int, max_call_s: float,
          on_size: Callable[[dict[str, Any]], None] | None = None) -> DtypeResult:
    result = DtypeResult(dtype, unit="TOPS" if dtype == "int8" else "TFLOP/s")
    result.skipped = trial(dtype, device)
    if result.skipped:
        return result
    n, best, flat = start, 0.0, 0
    with matmul_precision(dtype):
        while True:
            if not fits(dtype, n, device):
                result.stop = say("workload.microbench.stop.no_fit", n=n)
                break
            try:
                call = operands(dtype, n, device)
                timed = time_calls(call, device)
            except Exception as exc:  # noqa: BLE001 - a size that fails (out of memory...) ends the sweep, not the run
                said = first_line(exc, typed=True, limit=200)
                result.stop = say("workload.microbench.stop.failed", n=n, error=said)
                if not result.sizes:
                    result.skipped = said
                break
            del call
            point = figure(n, timed)
            result.sizes.append(point)
            if on_size:
                on_size(point)
            flat = flat + 1 if point["best"] <= best * RISE else 0
            best = max(best, point["best"])
            if flat == PATIENCE:
                result.stop = say("workload.microbench.stop.flat", n=n, patience=PATIENCE, rise=f"{RISE:.2f}")
                break
            if timed.best_s > max_call_s:
                result.stop = say("workload.microbench.stop.call_cap", n=n, seconds=f"{timed.best_s:.2f}", cap=f"{max_call_s:g}")
                break
            if n * 2 > max_size:
                result.stop = say("workload.microbench.stop.largest", max_size=max_size)
                break
            n *= 2
    _release(device)
    return result


def figure(n: int, timed: Timed) -> dict[str, Any]:
    ops = 2 * n ** 3
    return {"n": n, "best": ops / timed.best_s / 1e12, "median": ops / timed.median_s / 1e12,
            "calls": len(timed.seconds) * timed.calls_per_batch}


def _release(device: torch.device) -> None:
    dev.empty_cache(device)  # the next part must not find the sweep's blocks held
