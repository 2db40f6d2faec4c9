"""Replaying one recorded call in one dtype on the device, against float64 on the CPU.

Inputs are drawn from a seeded generator in the recorded shapes, strides and
value ranges (:mod:`workloads.opscan.record`), rounded to the dtype under test,
and the reference gets those same rounded values in float64: the comparison
measures the op, not the rounding of its inputs. Every floating tensor, dtype
argument and device argument follows the dtype and device under test (an fp32
recording replayed in bf16 is that call in bf16); integer and boolean tensors
keep their recorded values or range.

What is compared: the tensors the op returns and those it writes in place (the
schema's mutated arguments). Ops whose outputs are undefined (``empty``) or
random (dropout, ``normal_``) are checked for shape and dtype only, and say so.
When the CPU has no float64 kernel for an op (a device-only attention kernel),
the reference is the CPU in float32, else the device in fp32, and the row names
the reference it used.
"""

from __future__ import annotations

import math
import os
import re
import statistics
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import torch

from workloads.child import cpu_fallback
from workloads.child import device as dev
from workloads.child.cpu_fallback_trace import Findings
from workloads.errors import first_line
from workloads.facts.formatting import format_bytes
from workloads.hints import hint_for
from workloads.opscan import statuses as st
from workloads.opscan.inject import ENV as INJECT_ENV
from workloads.opscan.inject import Injections
from workloads.opscan.record import Call

TORCH_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
FULL_STORAGE_MAX = 1 << 24           # beyond this many elements a view's base is rebuilt just large enough
UNDEFINED_OUTPUT = ("empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "resize", "set")
# arguments kernels take in float32 whatever the dtype of the rest (the statistics a forward saves for its
# backward): cast to fp16 they are refused ("expected scalar type Float")
KEPT_FP32 = ("logsumexp",)
RANDOM_OUTPUT = ("native_dropout", "dropout", "bernoulli", "rand", "randn", "randint", "randperm", "rand_like",
                 "randn_like", "randint_like", "normal", "uniform", "exponential", "multinomial", "cauchy",
                 "log_normal", "geometric", "random")
_NOT_IMPLEMENTED = re.compile(r"not implemented for|Could not run|no kernel|not supported|NotImplementedError",
                              re.IGNORECASE)
_FALLBACK = re.compile(r"fall(s|ing)? ?back|run on the CPU|CPU fallback", re.IGNORECASE)


@dataclass
class Outcome:
    status: str
    message: str = ""
    nmse: float | None = None
    threshold: float | None = None
    nonfinite: int | None = None
    device_ms: float | None = None
    reference: str = ""

    def to_row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def resolve(op: str) -> Any:
    """The OpOverload named ``aten.convolution.default``."""
    namespace, name, overload = op.split(".", 2)
    return getattr(getattr(getattr(torch.ops, namespace), name), overload)


# --- building inputs ---------------------------------------------------------------------------

class Inputs:
    """One set of arguments for the device and the same values for the reference."""

    def __init__(self, call: Call, dtype: torch.dtype, device: torch.device, seed: int):
        self.dtype, self.device = dtype, device
        self.gen = torch.Generator().manual_seed(seed)
        self.cpu_values: list[tuple[Any, Any]] = []   # (spec, rounded float64 CPU base) in the order drawn
        names = [a.name for a in resolve(call.op)._schema.arguments]
        self.args = [self._build(a, names[i] if i < len(names) else "") for i, a in enumerate(call.args)]
        self.kwargs = {k: self._build(v, k) for k, v in call.kwargs.items()}

    def _build(self, spec: Any, name: str = "") -> Any:
        if isinstance(spec, dict):
            if "shape" in spec:
                return self._tensor(spec, name)
            if "list" in spec:
                return [self._build(v, name) for v in spec["list"]]
            if "float" in spec:
                return float(spec["float"])
            if "dtype" in spec:
                recorded = getattr(torch, spec["dtype"])
                return self.dtype if recorded.is_floating_point else recorded
            if "device" in spec:
                return self.device
            if "memory_format" in spec:
                return getattr(torch, spec["memory_format"])
            if "layout" in spec:
                return getattr(torch, spec["layout"])
            raise ValueError(f"cannot rebuild an argument of type {spec.get('unsupported', spec)}")
        return spec

    def _tensor(self, spec: dict[str, Any], name: str) -> torch.Tensor:
        recorded = getattr(torch, spec["dtype"])
        shape, stride, offset = spec["shape"], spec["stride"], spec["offset"]
        extent = offset + 1 + sum((n - 1) * s for n, s in zip(shape, stride) if n > 0) if all(shape) else 0
        storage = spec["storage"] if spec["storage"] <= FULL_STORAGE_MAX else extent
        storage = max(storage, extent)
        if "values" in spec and len(spec["values"]) >= storage:
            base = torch.tensor(spec["values"], dtype=recorded)
        elif recorded.is_floating_point:
            lo, hi = spec.get("range", (-1.0, 1.0))
            mean, std = spec.get("spread", ((lo + hi) / 2, (hi - lo) / 4))
            base = (torch.randn(storage, generator=self.gen, dtype=torch.float64) * std + mean).clamp_(lo, hi)
            base = base.to(self.dtype if name not in KEPT_FP32 else recorded)
        elif recorded == torch.bool:
            base = torch.rand(storage, generator=self.gen) < 0.5
        elif recorded.is_complex:
            base = torch.randn(storage, generator=self.gen, dtype=recorded)
        else:
            lo, hi = spec.get("range", (0, 1))
            base = torch.randint(int(lo), int(hi) + 1, (storage,), generator=self.gen, dtype=recorded)
        self.cpu_values.append(base)
        # a copy even on the CPU: an in-place op must not change the values the reference starts from
        return base.to(self.device, copy=True).as_strided(shape, stride, offset)

    def reference(self, call: Call, dtype: torch.dtype, device: torch.device) -> tuple[list[Any], dict[str, Any]]:
        """The same values in ``dtype`` (float64 for the reference) on ``device``, in the same layouts."""
        bases = iter(self.cpu_values)

        def again(spec: Any) -> Any:
            if isinstance(spec, dict):
                if "shape" in spec:
                    base = next(bases)
                    if base.is_floating_point():
                        base = base.to(dtype)
                    return base.to(device).as_strided(spec["shape"], spec["stride"], spec["offset"])
                if "list" in spec:
                    return [again(v) for v in spec["list"]]
                if "dtype" in spec:
                    recorded = getattr(torch, spec["dtype"])
                    return dtype if recorded.is_floating_point else recorded
                if "device" in spec:
                    return device
            return self._build(spec) if isinstance(spec, dict) else spec

        return [again(a) for a in call.args], {k: again(v) for k, v in call.kwargs.items()}


# --- running and comparing -----------------------------------------------------------------------

def outputs(func: Any, result: Any, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    """What the call produced: its returned tensors and scalars, then the arguments it wrote in place."""
    found: list[Any] = []

    def take(value: Any) -> None:
        if isinstance(value, (list, tuple)):
            for v in value:
                take(v)
        elif isinstance(value, (torch.Tensor, int, float, bool)):
            found.append(value)

    take(result)
    for i, argument in enumerate(func._schema.arguments):
        if argument.alias_info is not None and argument.alias_info.is_write:
            take(args[i] if i < len(args) else kwargs.get(argument.name))
    return found


def compare(got: list[Any], want: list[Any]) -> tuple[float, int, str]:
    """(NMSE over all floating outputs, NaN/inf mismatches, why they differ beyond numbers or '').

    Two things the dtype under test cannot do are not held against the kernel: a value beyond its range
    is inf in it (the reference rounded to the dtype is inf too: the untrained ResNet-50's gradients reach
    1e5, past fp16's 65504), and a value near zero keeps only the absolute precision of the dtype's
    subnormals (an error within 4 subnormal steps, 2.4e-7 in fp16, is no error).
    """
    if len(got) != len(want):
        return math.inf, 0, f"{len(got)} outputs, the reference has {len(want)}"
    err = ref_energy = 0.0
    nonfinite = 0
    for g, w in zip(got, want):
        if not isinstance(g, torch.Tensor):
            g, w = torch.tensor(g), torch.tensor(w)
        g = g.detach().cpu()
        w = w.detach().cpu()
        if tuple(g.shape) != tuple(w.shape):
            return math.inf, 0, f"shape {tuple(g.shape)}, the reference {tuple(w.shape)}"
        if not (g.is_floating_point() or g.is_complex()) and not (w.is_floating_point() or w.is_complex()):
            wrong = int((g != w.to(g.dtype)).sum())
            if wrong:
                return math.inf, 0, f"{wrong} of {g.numel()} integer/boolean values differ"
            continue
        atol = 0.0
        if g.is_floating_point() and not w.is_complex():
            info = torch.finfo(g.dtype)
            atol = 4 * info.smallest_normal * info.eps
            w = torch.where(torch.isinf(w.to(g.dtype)) & torch.isfinite(w), w.to(g.dtype).to(w.dtype), w)
        g, w = g.to(torch.float64), w.to(torch.float64)
        finite_g, finite_w = torch.isfinite(g), torch.isfinite(w)
        both = finite_g & finite_w
        nonfinite += int((finite_g != finite_w).sum())
        nonfinite += int((~finite_g & ~finite_w & ~((g == w) | (torch.isnan(g) & torch.isnan(w)))).sum())
        err += float(((g - w)[both].abs() - atol).clamp_(min=0).pow_(2).sum())
        ref_energy += float((w[both] ** 2).sum())
    if ref_energy == 0.0:
        return (0.0 if err == 0.0 else math.inf), nonfinite, ""
    return err / ref_energy, nonfinite, ""


def synchronize(device: torch.device) -> None:
    dev.synchronize(device)


def timed(run: Callable[[], Any], device: torch.device, repeats: int,
          keep: Callable[[Any], Any] = lambda result: result) -> tuple[Any, float]:
    """``keep`` of the first run's result (taken before the timed runs, which an in-place op would change
    again), and the median of ``repeats`` more runs, each after a sync (milliseconds)."""
    result = keep(run())
    synchronize(device)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        synchronize(device)
        times.append((time.perf_counter() - t0) * 1000)
    return result, statistics.median(times) if times else math.nan


def _short(op: str) -> str:
    return op.split(".")[1] if "." in op else op


def fallback_words(found: Findings) -> str | None:
    """'aten::roll ran on the CPU (torch.profiler: under an aten::_to_cpu, 2 host<->device copies, 512 B)'; None for
    none."""
    if not found.ops:
        return None
    nbytes = f", {format_bytes(found.copy_bytes_per_step)}" if found.copy_bytes_per_step is not None else ""
    return (f"{', '.join(op.op for op in found.ops)} ran on the CPU (torch.profiler: under an aten::_to_cpu, "
            f"{found.copies_per_step:g} host<->device copies{nbytes})")


class Replayer:
    """Runs calls in dtypes on one device; holds what the injections and the reference need."""

    def __init__(self, device: torch.device, injections: Injections, repeats: int = 3, seed: int = 0):
        self.device, self.injections, self.repeats, self.seed = device, injections, repeats, seed

    def fallback_said(self, caught: list[Any], func: Callable[..., Any], inputs: Any) -> str | None:
        """What says the op ran on the CPU: the backend's warning, else (off the CPU) torch.profiler's trace of one
        more call (a backend may fall back without a word, and MPS says its warning once a process)."""
        said = next((str(w.message) for w in caught if _FALLBACK.search(str(w.message))), None)
        if said is not None or self.device.type == "cpu":
            return said
        try:
            found = cpu_fallback.one_call(lambda: func(*inputs.args, **inputs.kwargs), self.device)
        except Exception:  # noqa: BLE001 - the timed calls ran: a profiler that cannot is no finding
            return None
        return fallback_words(found)

    def run(self, call: Call, dtype_name: str, index: int) -> Outcome:
        injected = self.injections.kind(call.op, dtype_name)
        if injected == "crash":
            os.abort()
        if injected == "hang":
            while True:
                time.sleep(3600)
        func = resolve(call.op)
        dtype = TORCH_DTYPES[dtype_name]
        threshold = st.threshold(call.op, dtype_name)
        name = _short(call.op)
        try:
            inputs = Inputs(call, dtype, self.device, self.seed + index)
        except Exception as exc:  # noqa: BLE001 - an argument the replay cannot rebuild is the scan's gap
            return Outcome(st.ERROR, f"cannot rebuild the arguments: {first_line(exc)}")
        tf32 = _Tf32(dtype_name == "tf32")
        with warnings.catch_warnings(record=True) as caught, tf32:
            warnings.simplefilter("always")
            try:
                if injected == "notimpl":
                    raise NotImplementedError(f'"{name}" not implemented for {_torch_name(dtype_name)} '
                                              f"(injected by {INJECT_ENV})")
                if injected == "error":
                    raise RuntimeError("CUDA error: an illegal memory access was encountered "
                                       f"(injected by {INJECT_ENV})")
                if injected == "fallback":
                    warnings.warn(f"The operator 'aten::{name}' is not currently supported on the {self.device.type} "
                                  f"backend and will fall back to run on the CPU (injected by {INJECT_ENV})")
                got, device_ms = timed(lambda: func(*inputs.args, **inputs.kwargs), self.device, self.repeats,
                                       lambda result: _snapshot(outputs(func, result, inputs.args, inputs.kwargs)))
            except Exception as exc:  # noqa: BLE001 - sorted into statuses: the scan goes on
                text = first_line(exc, typed=True)
                if isinstance(exc, NotImplementedError) or _NOT_IMPLEMENTED.search(str(exc)):
                    return Outcome(st.NOT_IMPLEMENTED, text, threshold=threshold)
                hint = hint_for(str(exc))
                return Outcome(st.ERROR, f"{text}{f' (hint: {hint})' if hint else ''}", threshold=threshold)
        fallback = self.fallback_said(caught, func, inputs)
        if fallback:
            return Outcome(st.CPU_FALLBACK, first_line(fallback), threshold=threshold, device_ms=device_ms)
        if injected == "wrong":
            got = [_perturbed(t) for t in got]
        if any(name.startswith(p) or name.rstrip("_") == p for p in UNDEFINED_OUTPUT + RANDOM_OUTPUT):
            kind = "undefined" if any(name.rstrip("_").startswith(p) for p in UNDEFINED_OUTPUT) else "random"
            return Outcome(st.OK, f"{kind} output: shape and dtype checked, values not compared",
                           device_ms=device_ms, reference="none")
        want, reference = self._reference(func, call, inputs, dtype_name)
        if want is None:
            return Outcome(st.OK, f"no reference ran ({reference}): ran without error, values not compared",
                           device_ms=device_ms, reference="none")
        nmse, nonfinite, why = compare(got, want)
        if why:
            return Outcome(st.MISMATCH, why, nmse=None, threshold=threshold, nonfinite=nonfinite,
                           device_ms=device_ms, reference=reference)
        if nonfinite or nmse > threshold:
            message = f"NMSE {nmse:.3g} > {threshold:g}" if nmse > threshold else ""
            if nonfinite:
                message = "; ".join(filter(None, [message, f"{nonfinite} NaN/inf where the reference differs"]))
            return Outcome(st.MISMATCH, message, nmse, threshold, nonfinite, device_ms, reference)
        return Outcome(st.OK, "", nmse, threshold, nonfinite, device_ms, reference)

    def _reference(self, func: Any, call: Call, inputs: Inputs, dtype_name: str) -> tuple[list[Any] | None, str]:
        """Outputs of the same call on the CPU in float64; else CPU float32; else the device in fp32."""
        cpu = torch.device("cpu")
        tries = [("cpu-float64", torch.float64, cpu), ("cpu-float32", torch.float32, cpu)]
        if dtype_name not in ("fp32", "tf32") and self.device.type != "cpu":
            tries.append((f"{self.device.type}-fp32", torch.float32, self.device))
        last = ""
        for label, dtype, device in tries:
            try:
                args, kwargs = inputs.reference(call, dtype, device)
                return outputs(func, func(*args, **kwargs), args, kwargs), label
            except Exception as exc:  # noqa: BLE001 - try the next reference
                last = first_line(exc)
        return None, last

    def time_again(self, call: Call, dtype_name: str, index: int, device: torch.device | None = None) -> float | None:
        """The call's time in a dtype (median of the repeats, ms), without a comparison: a second look at a
        time that looked slow, or the CPU's float32 figure the device is read against."""
        device = device or self.device
        try:
            inputs = Inputs(call, TORCH_DTYPES[dtype_name], device, self.seed + index)
            func = resolve(call.op)
            with _Tf32(dtype_name == "tf32"):
                return timed(lambda: func(*inputs.args, **inputs.kwargs), device, self.repeats)[1]
        except Exception:  # noqa: BLE001 - no figure: the column stays empty
            return None


def _snapshot(values: list[Any]) -> list[Any]:
    return [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in values]


def _perturbed(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
        noise = torch.randn(value.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float32)
        return value + (0.5 * value.float().abs().mean() * noise).to(value.device, value.dtype)
    return value


def _torch_name(dtype_name: str) -> str:
    return {"fp16": "'Half'", "bf16": "'BFloat16'"}.get(dtype_name, "'Float'")


class _Tf32:
    """fp32 with TF32 matmuls and convolutions allowed, for the ``tf32`` dtype."""

    def __init__(self, on: bool):
        self.on = on

    def __enter__(self) -> None:
        if self.on:
            self.before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True

    def __exit__(self, *exc: Any) -> None:
        if self.on:
            torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = self.before
